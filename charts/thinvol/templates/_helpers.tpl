{{/* The operator's name: fixed, because the drivers admit exactly this ServiceAccount. */}}
{{- define "thinvol.operator" -}}
thinvol-operator
{{- end }}

{{- define "thinvol.labels" -}}
app.kubernetes.io/part-of: thinvol
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
{{- end }}

{{- define "thinvol.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* "true" on OpenShift: as set, or with openshift.enabled=auto from the API versions served. */}}
{{- define "thinvol.openshift" -}}
{{- $enabled := toString .Values.openshift.enabled -}}
{{- if eq $enabled "auto" -}}
{{- .Capabilities.APIVersions.Has "security.openshift.io/v1" -}}
{{- else -}}
{{- eq $enabled "true" -}}
{{- end -}}
{{- end }}
