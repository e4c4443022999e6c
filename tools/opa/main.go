// The OPA that GitOpsHQ runs: OPA's own command line (github.com/open-policy-agent/opa/cmd),
// with the built-ins that reach outside OPA removed before anything compiles a policy.
//
// `opa run --server` takes no capabilities file, so a policy uploaded through its REST API could
// otherwise call http.send (any address OPA can reach: the hub, Temporal, OPA's own API),
// net.lookup_ip_addr (DNS) or opa.runtime (OPA's environment and configuration). Removed from
// ast.Builtins, they are not in the capabilities every compiler in this binary starts from, so a
// module that calls one is refused at compile time ("undefined function http.send" with its line
// and column) by `opa run`, `opa check`, `opa test` and `opa eval` alike.
//
// The list is banned-builtins.txt beside this file; the hub refuses the same built-ins (its copy,
// activities/.../policy/banned-builtins.txt, is checked equal to this one by PolicyTextTest), so the
// hub and OPA agree.
package main

import (
	_ "embed"
	"errors"
	"os"
	"strings"

	"github.com/open-policy-agent/opa/cmd"
	"github.com/open-policy-agent/opa/v1/ast"
)

//go:embed banned-builtins.txt
var bannedList string

func banned() map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(bannedList, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	return out
}

func lockDown() {
	ban := banned()
	kept := ast.Builtins[:0]
	for _, b := range ast.Builtins {
		if ban[b.Name] {
			delete(ast.BuiltinMap, b.Name)
			continue
		}
		kept = append(kept, b)
	}
	ast.Builtins = kept
}

func main() {
	lockDown()
	var exit int
	defer func() {
		if exit != 0 {
			os.Exit(exit)
		}
	}()
	if err := cmd.RootCommand.Execute(); err != nil {
		var e *cmd.ExitError
		if errors.As(err, &e) {
			exit = e.Exit
		} else {
			exit = 1
		}
	}
}
