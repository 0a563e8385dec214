{{/*
The labels of every object. Unlike `lbk8s install` (managed-by: lbk8s-install), a Helm release is managed by
Helm, so `lbk8s uninstall` leaves it alone; use `helm uninstall`.
*/}}
{{- define "lbk8s.labels" -}}
app.kubernetes.io/name: lbk8s
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end }}

{{/*
Pod labels double as selectors (immutable on upgrade) and as the speakers' way to find their peers
(speaker --speaker-selector): name and component only, the same as `lbk8s install` renders.
*/}}
{{- define "lbk8s.podLabels" -}}
app.kubernetes.io/name: lbk8s
{{- end }}

{{- define "lbk8s.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}
