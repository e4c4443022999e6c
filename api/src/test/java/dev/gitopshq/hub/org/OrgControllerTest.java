package dev.gitopshq.hub.org;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.hub.features.Plan;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class OrgControllerTest {

  @Test
  void theSetPlanRequestOffersExactlyThePlansTheServerAccepts() throws Exception {
    Schema schema =
        OrgController.SetPlan.class.getDeclaredField("plan").getAnnotation(Schema.class);

    assertThat(schema.allowableValues())
        .containsExactly(Arrays.stream(Plan.values()).map(Plan::wireName).toArray(String[]::new));
    assertThat(schema.requiredMode()).isEqualTo(Schema.RequiredMode.REQUIRED);
  }
}
