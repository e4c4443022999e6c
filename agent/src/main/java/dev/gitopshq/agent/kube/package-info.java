/** Making it so: the agent's only code that talks to the Kubernetes API (Fabric8). */
package dev.gitopshq.agent.kube;
