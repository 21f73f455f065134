{{/* Names, labels and small shared pieces of the gangplank chart. */}}

{{- define "gangplank.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Prefix of every object name: <release>-gangplank, or <release> when it already says gangplank. */}}
{{- define "gangplank.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* <fullname>-<component>; call with (dict "root" $ "component" "extender"). */}}
{{- define "gangplank.componentName" -}}
{{- printf "%s-%s" (include "gangplank.fullname" .root) .component -}}
{{- end -}}

{{- define "gangplank.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gangplank.labels" -}}
helm.sh/chart: {{ include "gangplank.chart" . }}
app.kubernetes.io/name: {{ include "gangplank.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gangplank
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels of one component's objects; call with (dict "root" $ "component" "operator"). */}}
{{- define "gangplank.componentLabels" -}}
{{ include "gangplank.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The immutable selector of one component's pods. */}}
{{- define "gangplank.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gangplank.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "gangplank.serviceAccountName" -}}
{{- if .root.Values.serviceAccount.create -}}
{{- include "gangplank.componentName" . -}}
{{- else -}}
default
{{- end -}}
{{- end -}}

{{- define "gangplank.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* Service DNS names of a component, short to fully qualified. */}}
{{- define "gangplank.serviceDnsNames" -}}
{{- $svc := include "gangplank.componentName" . -}}
{{- $ns := .root.Release.Namespace -}}
{{- list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns) | toJson -}}
{{- end -}}

{{/* The host kube-scheduler calls and checks the extender's certificate against. */}}
{{- define "gangplank.extenderHost" -}}
{{- if eq .Values.extender.mode "sidecar" -}}
127.0.0.1
{{- else -}}
{{- printf "%s.%s.svc" (include "gangplank.componentName" (dict "root" . "component" "extender")) .Release.Namespace -}}
{{- end -}}
{{- end -}}

{{- define "gangplank.extenderScheme" -}}
{{- if .Values.extender.tls.enabled }}https{{ else }}http{{ end -}}
{{- end -}}

{{/* Names of the TLS Secrets (tls.crt, tls.key, ca.crt). */}}
{{- define "gangplank.webhookTlsSecret" -}}
{{- include "gangplank.componentName" (dict "root" . "component" "webhook-tls") -}}
{{- end -}}
{{- define "gangplank.extenderTlsSecret" -}}
{{- include "gangplank.componentName" (dict "root" . "component" "extender-tls") -}}
{{- end -}}

{{/* Where the containers find their certificates. */}}
{{- define "gangplank.tlsMountPath" -}}/etc/gangplank/tls{{- end -}}
{{- define "gangplank.extenderCaMountPath" -}}/etc/gangplank/extender-ca{{- end -}}
{{- define "gangplank.planSealMountPath" -}}/etc/gangplank/plan-seal{{- end -}}
{{- define "gangplank.planSealVolume" -}}
- name: plan-seal
  secret:
    secretName: {{ include "gangplank.planSealSecret" . }}
    defaultMode: 288  # 0440
{{- end -}}
{{- define "gangplank.planSealSecret" -}}
{{- .Values.planSeal.existingSecret | default (include "gangplank.componentName" (dict "root" . "component" "plan-seal")) -}}
{{- end -}}

{{/* The security context of every container: non-root, read-only root filesystem, no escalation. */}}
{{- define "gangplank.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
privileged: false
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* Spread a component's replicas over nodes unless the user gave an affinity. */}}
{{- define "gangplank.affinity" -}}
{{- if .values.affinity -}}
{{ toYaml .values.affinity }}
{{- else -}}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "gangplank.selectorLabels" . | nindent 12 }}
{{- end -}}
{{- end -}}

{{/* Scheduling fields shared by the Deployments; call with (dict "root" $ "component" c "values" v). */}}
{{- define "gangplank.podPlacement" -}}
{{- with .values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
affinity:
  {{- include "gangplank.affinity" . | nindent 2 }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Seconds in a Go duration of one unit ("5s", "500ms", "2m", "1h"); the schema allows only those. */}}
{{- define "gangplank.durationSeconds" -}}
{{- $d := . | toString -}}
{{- if hasSuffix "ms" $d -}}{{ divf (trimSuffix "ms" $d | float64) 1000 }}
{{- else if hasSuffix "s" $d -}}{{ trimSuffix "s" $d | float64 }}
{{- else if hasSuffix "m" $d -}}{{ mulf (trimSuffix "m" $d | float64) 60 }}
{{- else if hasSuffix "h" $d -}}{{ mulf (trimSuffix "h" $d | float64) 3600 }}
{{- else -}}{{ fail (printf "extender.httpTimeout: %q is not a duration like 5s" $d) }}
{{- end -}}
{{- end -}}

{{/* The default queue both the extender and the operator get; operator.defaultQueue is its old name. */}}
{{- define "gangplank.defaultQueue" -}}
{{- .Values.defaultQueue | default .Values.operator.defaultQueue -}}
{{- end -}}

{{/* A list of strings as the items of a CEL list literal: 'a', 'b' (the values' schema keeps quotes out). */}}
{{- define "gangplank.celStrings" -}}
{{- range $i, $s := . }}{{ if $i }}, {{ end }}{{ $s | squote }}{{ end }}
{{- end -}}

{{/*
The sources a health port admits (a NetworkPolicy ingress rule's `from`): pods of
networkPolicy.monitoringNamespaces (Prometheus). Nothing when the list is empty: the port is then open
to every source.
*/}}
{{- define "gangplank.monitoringPeers" -}}
{{- with .Values.networkPolicy.monitoringNamespaces -}}
from:
  - namespaceSelector:
      matchExpressions:
        - key: kubernetes.io/metadata.name
          operator: In
          values: {{ toJson . }}
{{- end -}}
{{- end -}}

{{- /*
A line for NOTES.txt when the chart's kube-scheduler and the cluster are out of Kubernetes' version-skew
policy (a kube-scheduler never newer than its API server, at most one minor older), or "". A tag that is
no version (a digest, a custom build) is not judged.
*/}}
{{- define "gangplank.schedulerSkew" -}}
{{- $tag := .Values.scheduler.image.tag | toString -}}
{{- if and .Values.scheduler.enabled (regexMatch "^v?[0-9]+\\.[0-9]+\\.[0-9]+" $tag) -}}
{{- $scheduler := semver (regexFind "^v?[0-9]+\\.[0-9]+\\.[0-9]+" $tag) -}}
{{- $cluster := semver .Capabilities.KubeVersion.Version -}}
{{- $minors := sub (add (mul $cluster.Major 1000) $cluster.Minor) (add (mul $scheduler.Major 1000) $scheduler.Minor) -}}
{{- if or (lt (int $minors) 0) (gt (int $minors) 1) -}}
WARNING: scheduler.image.tag {{ $tag }} is outside Kubernetes' version-skew policy for this cluster
({{ .Capabilities.KubeVersion.Version }}): kube-scheduler may be at most one minor version older than the API
server, never newer. Set scheduler.image.tag to the cluster's version (v{{ $cluster.Major }}.{{ $cluster.Minor }}.x).
{{- end -}}
{{- end -}}
{{- end -}}
