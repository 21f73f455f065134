{{/*
The extender's container, the same in its own Deployment (extender.mode=service) and inside the
kube-scheduler pod (extender.mode=sidecar). Its flags mirror the extenders entry of the scheduler's
KubeSchedulerConfiguration (scheduler/configmap.yaml): same port, path prefix, verbs and managed resources.
*/}}
{{- define "gangplank.extenderContainer" -}}
{{- $e := .Values.extender -}}
- name: extender
  image: {{ include "gangplank.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  command: ["/usr/local/bin/gangplank-extender"]
  args:
    {{- /* A sidecar is called by kube-scheduler in the same pod: nothing else may reach its verbs. */}}
    - --listen-address={{ ternary "127.0.0.1" "0.0.0.0" (eq $e.mode "sidecar") }}
    - --port={{ $e.port }}
    - --health-port={{ $e.healthPort }}
    - --max-connections={{ int64 $e.maxConnections }}
    - --scheduler-name={{ .Values.schedulerName }}
    - --path-prefix={{ $e.pathPrefix }}
    - --filter-verb={{ $e.filterVerb }}
    - --prioritize-verb={{ $e.prioritizeVerb }}
    - --preempt-verb={{ $e.preemptVerb }}
    {{- with $e.bindVerb }}
    - --bind-verb={{ . }}
    {{- end }}
    {{- with $e.managedResources }}
    - --managed-resource={{ join "," . }}
    {{- end }}
    - --policy={{ $e.policy }}
    {{- with $e.topologyKeys }}
    - --topology-keys={{ join "," . }}
    {{- end }}
    {{- range $e.queues }}
    - --queue={{ . }}
    {{- end }}
    {{- with include "gangplank.defaultQueue" . }}
    - --default-queue={{ . }}
    {{- end }}
    - --max-body-bytes={{ int64 $e.maxBodyBytes }}
    {{- if $e.tls.enabled }}
    - --tls-cert-file={{ include "gangplank.tlsMountPath" . }}/tls.crt
    - --tls-key-file={{ include "gangplank.tlsMountPath" . }}/tls.key
    - --tls-reload-seconds={{ $e.tls.reloadSeconds }}
    {{- end }}
    {{- if include "gangplank.needsSchedulerClientTls" . }}
    - --client-ca-file={{ include "gangplank.tlsMountPath" . }}/ca.crt
    - --client-cert-name={{ include "gangplank.componentName" (dict "root" . "component" "scheduler") }}
    {{- end }}
    {{- if .Values.planSeal.enabled }}
    - --plan-seal-key-file={{ include "gangplank.planSealMountPath" . }}/key
    {{- end }}
    - --log-level={{ $e.logLevel }}
    {{- range $e.extraArgs }}
    - {{ . | quote }}
    {{- end }}
  ports:
    # Not "https": in sidecar mode kube-scheduler's own port has that name in the same pod.
    - name: extender
      containerPort: {{ $e.port }}
      protocol: TCP
    # Probes and Prometheus: no client certificate asked, no verbs served.
    - name: extender-health
      containerPort: {{ $e.healthPort }}
      protocol: TCP
  livenessProbe:
    httpGet:
      path: /healthz
      port: extender-health
      scheme: {{ include "gangplank.extenderScheme" . | upper }}
    periodSeconds: 10
    timeoutSeconds: 3
    failureThreshold: 3
  readinessProbe:
    httpGet:
      path: /readyz
      port: extender-health
      scheme: {{ include "gangplank.extenderScheme" . | upper }}
    periodSeconds: 5
    timeoutSeconds: 3
    failureThreshold: 2
  startupProbe:
    httpGet:
      path: /healthz
      port: extender-health
      scheme: {{ include "gangplank.extenderScheme" . | upper }}
    periodSeconds: 2
    failureThreshold: 30
  resources:
    {{- toYaml $e.resources | nindent 4 }}
  securityContext:
    {{- include "gangplank.containerSecurityContext" . | nindent 4 }}
  {{- if or $e.tls.enabled .Values.planSeal.enabled }}
  volumeMounts:
    {{- if $e.tls.enabled }}
    - name: extender-tls
      mountPath: {{ include "gangplank.tlsMountPath" . }}
      readOnly: true
    {{- end }}
    {{- if .Values.planSeal.enabled }}
    - name: plan-seal
      mountPath: {{ include "gangplank.planSealMountPath" . }}
      readOnly: true
    {{- end }}
  {{- end }}
{{- end -}}

{{/* The extender's volumes (its certificate, the plan seal's key), for whichever pod runs it. */}}
{{- define "gangplank.extenderVolumes" -}}
{{- if .Values.planSeal.enabled -}}
{{ include "gangplank.planSealVolume" . }}
{{ end -}}
{{- if .Values.extender.tls.enabled -}}
- name: extender-tls
  secret:
    secretName: {{ include "gangplank.extenderTlsSecret" . }}
    defaultMode: 288  # 0440
    items:
      - key: tls.crt
        path: tls.crt
      - key: tls.key
        path: tls.key
      {{- if include "gangplank.needsSchedulerClientTls" . }}
      - key: ca.crt
        path: ca.crt
      {{- end }}
{{- end -}}
{{- end -}}
