{{/*
Names and labels.
*/}}
{{- define "gitopshq-hub.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gitopshq-hub.fullname" -}}
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

{{- define "gitopshq-hub.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gitopshq-hub.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gitopshq-hub.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "gitopshq-hub.labels" -}}
helm.sh/chart: {{ include "gitopshq-hub.chart" . }}
{{ include "gitopshq-hub.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gitopshq
{{- end }}

{{- define "gitopshq-hub.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gitopshq-hub.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}


{{/*
The Secret the chart creates for values given in clear (database.password,
bootstrap.token, webhook.secret, encryptionKey.value); empty when there is none.
*/}}
{{- define "gitopshq-hub.secretData" -}}
{{- with .Values.database.password }}
GITOPSHQ_DB_PASSWORD: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.bootstrap.token }}
GITOPSHQ_BOOTSTRAP_TOKEN: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.opa.token }}
GITOPSHQ_OPA_TOKEN: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.webhook.secret }}
GITOPSHQ_WEBHOOK_SECRET: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.encryptionKey.value }}
GITOPSHQ_ENCRYPTION_KEY: {{ . | trim | b64enc | quote }}
{{- end }}
{{- with .Values.peerKey.value }}
GITOPSHQ_PEER_KEY: {{ . | b64enc | quote }}
{{- end }}
{{- end }}

{{/*
Where the hub keeps its state and scratch space. The data directory is the
persistence volume; the hosted repositories are under it so that one volume
holds everything a replica must share. Renders use their own emptyDir: scratch
that must not fill (or outlive the pod on) the shared volume.
*/}}
{{- define "gitopshq-hub.dataDir" -}}/var/lib/gitopshq/data{{- end }}
{{- define "gitopshq-hub.gitRoot" -}}/var/lib/gitopshq/data/repos{{- end }}
{{- define "gitopshq-hub.renderDir" -}}/var/lib/gitopshq-render{{- end }}

{{- define "gitopshq-hub.dataClaimName" -}}
{{- .Values.persistence.existingClaim | default (printf "%s-data" (include "gitopshq-hub.fullname" .)) }}
{{- end }}

{{/*
"true" when the data directory is on a PVC: with persistence.enabled, except for
more than one replica with git.storage=postgres (the repositories are in
PostgreSQL; nothing left in the directory needs to be shared or kept).
*/}}
{{- define "gitopshq-hub.dataOnClaim" -}}
{{- if and .Values.persistence.enabled (not (and (eq .Values.git.storage "postgres") (gt (int .Values.replicaCount) 1))) }}true{{ end }}
{{- end }}

{{/*
"true" when the chart creates a PVC only one node can mount.
*/}}
{{- define "gitopshq-hub.singleNodeVolume" -}}
{{- if and (include "gitopshq-hub.dataOnClaim" .) (not .Values.persistence.existingClaim) (not (has "ReadWriteMany" .Values.persistence.accessModes)) }}true{{ end }}
{{- end }}

{{/*
GITOPSHQ_PUBLIC_URL: publicUrl, else the first ingress host (https when a TLS
section names it), else empty (the hub's default).
*/}}
{{- define "gitopshq-hub.publicUrl" -}}
{{- if .Values.publicUrl }}
{{- .Values.publicUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts }}
{{- $host := (first .Values.ingress.hosts).host | default "" }}
{{- if and $host (not (hasPrefix "*" $host)) }}
{{- $tls := false }}
{{- range .Values.ingress.tls }}
{{- if has $host (.hosts | default list) }}
{{- $tls = true }}
{{- end }}
{{- end }}
{{- printf "%s://%s" (ternary "https" "http" $tls) $host }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Refuses combinations that cannot work, naming the values to change.
*/}}
{{- define "gitopshq-hub.validate" -}}
{{- if and (not .Values.database.password) (not .Values.database.existingSecret) }}
{{- fail "set database.password or database.existingSecret: the hub never starts with a default database password" }}
{{- end }}
{{- if and .Values.bootstrap.token .Values.bootstrap.existingSecret }}
{{- fail "set bootstrap.token or bootstrap.existingSecret, not both" }}
{{- end }}
{{- if and .Values.webhook.secret .Values.webhook.existingSecret }}
{{- fail "set webhook.secret or webhook.existingSecret, not both" }}
{{- end }}
{{- if and (or .Values.webhook.secret .Values.webhook.existingSecret) (not .Values.webhook.url) }}
{{- fail "a webhook secret is set but webhook.url is empty" }}
{{- end }}
{{- if and .Values.encryptionKey.value .Values.encryptionKey.existingSecret }}
{{- fail "set encryptionKey.value or encryptionKey.existingSecret, not both" }}
{{- end }}
{{- if and .Values.peerKey.value .Values.peerKey.existingSecret }}
{{- fail "set peerKey.value or peerKey.existingSecret, not both" }}
{{- end }}
{{- if gt (int .Values.replicaCount) 1 }}
{{- if eq .Values.git.storage "file" }}
{{- if not .Values.persistence.enabled }}
{{- fail "replicaCount > 1 needs persistence.enabled=true on shared storage: with an emptyDir every replica would keep its own copy of the hosted Git repositories" }}
{{- end }}
{{- if include "gitopshq-hub.singleNodeVolume" . }}
{{- fail "replicaCount > 1 needs a volume every replica can mount: set persistence.accessModes to [ReadWriteMany] (with a persistence.storageClass that supports it) or persistence.existingClaim to a claim on shared storage; a ReadWriteOnce volume holds the hosted Git repositories for one node only (or set git.storage=postgres: no shared volume at all)" }}
{{- end }}
{{- end }}
{{- if not (or .Values.encryptionKey.value .Values.encryptionKey.existingSecret) }}
{{- fail "replicaCount > 1 needs one encryption key for all replicas: set encryptionKey.existingSecret or encryptionKey.value (openssl rand -base64 32)" }}
{{- end }}
{{- if not (or .Values.peerKey.value .Values.peerKey.existingSecret) }}
{{- fail "replicaCount > 1 needs one peer key for all replicas, so that any replica can reach an agent connected to another: set peerKey.existingSecret or peerKey.value (openssl rand -hex 32)" }}
{{- end }}
{{- end }}
{{- end }}
