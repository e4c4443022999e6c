{{/*
Names and labels.
*/}}
{{- define "gitopshq-agent.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gitopshq-agent.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "gitopshq-agent.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gitopshq-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gitopshq-agent.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "gitopshq-agent.labels" -}}
helm.sh/chart: {{ include "gitopshq-agent.chart" . }}
{{ include "gitopshq-agent.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gitopshq
{{- end }}

{{- define "gitopshq-agent.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gitopshq-agent.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The identity Secret's name (persistence.type=secret).
*/}}
{{- define "gitopshq-agent.identitySecretName" -}}
{{- default (printf "%s-identity" (include "gitopshq-agent.fullname" .)) .Values.persistence.secretName }}
{{- end }}

{{/*
Where the identity is kept: "secret", "pvc" or "ephemeral" (persistence disabled).
*/}}
{{- define "gitopshq-agent.identityMode" -}}
{{- if not .Values.persistence.enabled }}ephemeral{{ else }}{{ .Values.persistence.type }}{{ end }}
{{- end }}

{{/*
The capabilities in the order of the product documentation: value key, seed name
(the name the agent and hub use), and whether it needs write access to the cluster.
*/}}
{{- define "gitopshq-agent.capabilityTable" -}}
- {key: observe, seed: observe, write: false}
- {key: diagnosticsRead, seed: diagnostics.read, write: false}
- {key: argocdRead, seed: argocd.read, write: false}
- {key: argocdWrite, seed: argocd.write, write: true}
- {key: directDeploy, seed: direct.deploy, write: true}
- {key: kubernetesRestart, seed: kubernetes.restart, write: true}
- {key: kubernetesScale, seed: kubernetes.scale, write: true}
- {key: credentialSync, seed: credential.sync, write: true}
- {key: tokenRotate, seed: token.rotate, write: false}
- {key: adapterWire, seed: adapter.wire, write: true}
{{- end }}

{{/*
"true" when the capability named by the second list element is in effect: enabled,
and for a write capability only with rbac.profile=readwrite. Usage:
  include "gitopshq-agent.capability" (list $ "argocdWrite")
*/}}
{{- define "gitopshq-agent.capability" -}}
{{- $root := index . 0 }}
{{- $key := index . 1 }}
{{- range (include "gitopshq-agent.capabilityTable" $root | fromYamlArray) }}
{{- if and (eq .key $key) (index $root.Values.capabilities $key) (or (not .write) (eq $root.Values.rbac.profile "readwrite")) }}true{{ end }}
{{- end }}
{{- end }}

{{/*
The seed names of the capabilities in effect, comma-separated (GITOPSHQ_CAPABILITIES).
*/}}
{{- define "gitopshq-agent.capabilities" -}}
{{- $names := list }}
{{- range (include "gitopshq-agent.capabilityTable" . | fromYamlArray) }}
{{- if include "gitopshq-agent.capability" (list $ .key) }}
{{- $names = append $names .seed }}
{{- end }}
{{- end }}
{{- join "," $names }}
{{- end }}

{{/*
Value keys of write capabilities that are enabled but ignored because rbac.profile=readonly.
*/}}
{{- define "gitopshq-agent.ignoredCapabilities" -}}
{{- $names := list }}
{{- range (include "gitopshq-agent.capabilityTable" . | fromYamlArray) }}
{{- if and .write (index $.Values.capabilities .key) (ne $.Values.rbac.profile "readwrite") }}
{{- $names = append $names (printf "capabilities.%s" .key) }}
{{- end }}
{{- end }}
{{- join ", " $names }}
{{- end }}

{{/*
The port of hub.address (host:port, IPv6 hosts in brackets).
*/}}
{{- define "gitopshq-agent.hubPort" -}}
{{- splitList ":" .Values.hub.address | last }}
{{- end }}

{{/*
"true" when the hub's CA bundle is mounted.
*/}}
{{- define "gitopshq-agent.hasCa" -}}
{{- if or .Values.tls.caBundle .Values.tls.existingCaSecret }}true{{ end }}
{{- end }}

{{/*
Refuses combinations the agent would reject at start, with the value to change.
*/}}
{{- define "gitopshq-agent.validate" -}}
{{- if not (include "gitopshq-agent.capabilities" .) }}
{{- fail "no capability is in effect: enable at least one of capabilities.* (the agent refuses an empty GITOPSHQ_CAPABILITIES); write capabilities need rbac.profile=readwrite" }}
{{- end }}
{{- if and .Values.tls.insecure .Values.tls.plaintext }}
{{- fail "tls.insecure and tls.plaintext cannot both be true: one skips certificate checks on a TLS connection, the other disables TLS" }}
{{- end }}
{{- if and .Values.tls.caBundle .Values.tls.existingCaSecret }}
{{- fail "set tls.caBundle or tls.existingCaSecret, not both" }}
{{- end }}
{{- if and (include "gitopshq-agent.hasCa" .) .Values.tls.plaintext }}
{{- fail "a CA bundle (tls.caBundle / tls.existingCaSecret) is set but tls.plaintext=true disables TLS; unset one of them" }}
{{- end }}
{{- if and .Values.registrationToken .Values.existingRegistrationSecret }}
{{- fail "set registrationToken or existingRegistrationSecret, not both" }}
{{- end }}
{{- if and (not .Values.serviceAccount.create) (not .Values.serviceAccount.name) }}
{{- fail "serviceAccount.name is required when serviceAccount.create=false (the chart never binds RBAC to the namespace's default ServiceAccount)" }}
{{- end }}
{{- end }}
