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
bootstrap.token, webhook.secret); empty when there is none.
*/}}
{{- define "gitopshq-hub.secretData" -}}
{{- with .Values.database.password }}
GITOPSHQ_DB_PASSWORD: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.bootstrap.token }}
GITOPSHQ_BOOTSTRAP_TOKEN: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.webhook.secret }}
GITOPSHQ_WEBHOOK_SECRET: {{ . | b64enc | quote }}
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
{{- end }}
