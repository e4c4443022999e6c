package dev.gitopshq.idp;

import java.util.regex.Pattern;
import org.springframework.http.MediaType;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;

/** The pages a signed-in user sees: the device-code form, and a landing page. */
@RestController
public class PagesController {
  /** User codes are eight letters, maybe split by a dash; anything else is not echoed. */
  private static final Pattern USER_CODE = Pattern.compile("[A-Za-z]{4}-?[A-Za-z]{4}");

  /**
   * The device verification page ({@code verification_uri}): a form that sends the code to the
   * authorization server's device verification endpoint, which approves the device.
   */
  @GetMapping(value = IdpSecurityConfig.ACTIVATE, produces = MediaType.TEXT_HTML_VALUE)
  String activate(@RequestParam(name = "user_code", required = false) String userCode) {
    String code = userCode != null && USER_CODE.matcher(userCode).matches() ? userCode : "";
    return """
        <!doctype html>
        <html><head><title>Approve a device</title></head><body>
        <h1>Approve a device</h1>
        <p>Enter the code your command line shows.</p>
        <form method="get" action="/oauth2/device_verification">
          <label for="user_code">Code</label>
          <input id="user_code" name="user_code" value="%s" autocomplete="off">
          <button type="submit">Approve</button>
        </form>
        </body></html>
        """
        .formatted(HtmlUtils.htmlEscape(code));
  }

  @GetMapping(value = "/", produces = MediaType.TEXT_HTML_VALUE)
  String home(Authentication user, @RequestParam(name = "success", required = false) String ok) {
    String what = ok != null ? "The device is approved; you can close this page." : "Signed in.";
    return "<!doctype html><html><body><p>"
        + HtmlUtils.htmlEscape(user.getName())
        + ": "
        + what
        + "</p></body></html>";
  }
}
