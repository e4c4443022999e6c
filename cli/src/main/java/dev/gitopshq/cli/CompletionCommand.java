package dev.gitopshq.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "completion",
    description = {
      "Print the shell completion script (bash; zsh through bashcompinit).",
      "bash: source <(gitopshq completion)",
      "zsh:  autoload -U +X bashcompinit && bashcompinit && source <(gitopshq completion)"
    })
final class CompletionCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    Root root = Root.of(spec);
    root.out.print(AutoComplete.bash("gitopshq", spec.root().commandLine()));
    root.out.flush();
  }
}
