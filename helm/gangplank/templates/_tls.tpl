{{/*
The chart's own certificates (certificates.mode=selfSigned): one CA, a certificate for the webhook
Service and one for the extender (its Service names, localhost and 127.0.0.1, so both extender modes
verify). Generated once per render and shared by every template through a memo in .Values; on upgrade
the Secrets already in the cluster are kept (lookup), so the webhook's caBundle and kube-scheduler's CA
file stay valid. Delete the Secrets and upgrade to issue new ones.
With extender.tls.clientAuth it also issues kube-scheduler's client certificate for the extender's
mutual TLS, signed by the same CA (the extender trusts ca.crt of its own Secret).
Returns JSON: {"ca", "webhookCert", "webhookKey", "extenderCert", "extenderKey", "clientCert", "clientKey"},
PEM strings.
*/}}
{{- define "gangplank.selfSignedTls" -}}
{{- if not (hasKey .Values "gangplankGeneratedTls") -}}
{{- $ns := .Release.Namespace -}}
{{- $webhook := lookup "v1" "Secret" $ns (include "gangplank.webhookTlsSecret" .) | default dict -}}
{{- $extender := lookup "v1" "Secret" $ns (include "gangplank.extenderTlsSecret" .) | default dict -}}
{{- $wd := get $webhook "data" | default dict -}}
{{- $ed := get $extender "data" | default dict -}}
{{- $client := lookup "v1" "Secret" $ns (include "gangplank.schedulerClientTlsSecret" .) | default dict -}}
{{- $cd := get $client "data" | default dict -}}
{{- $tls := dict -}}
{{- /* Only the Secrets this release renders count: one that is not needed (webhook off, or a plain-HTTP
extender) is never there, and must not make every upgrade issue a new CA. */ -}}
{{- $needWebhook := include "gangplank.needsWebhookTls" . -}}
{{- $needExtender := include "gangplank.needsExtenderTls" . -}}
{{- $keptWebhook := or (not $needWebhook) (and (get $wd "tls.crt") (get $wd "tls.key") (get $wd "ca.crt")) -}}
{{- $keptExtender := or (not $needExtender) (and (get $ed "tls.crt") (get $ed "tls.key") (get $ed "ca.crt")) -}}
{{- $needClient := include "gangplank.needsSchedulerClientTls" . -}}
{{- $keptClient := or (not $needClient) (and (get $cd "tls.crt") (get $cd "tls.key") (eq (get $cd "ca.crt") (get $ed "ca.crt"))) -}}
{{- $keptCa := ternary (get $wd "ca.crt") (get $ed "ca.crt") (not (empty $needWebhook)) -}}
{{- $oneCa := or (not (and $needWebhook $needExtender)) (eq (get $wd "ca.crt") (get $ed "ca.crt")) -}}
{{- if and $keptWebhook $keptExtender $keptClient $keptCa $oneCa -}}
{{- $tls = dict "ca" ($keptCa | b64dec) "webhookCert" (get $wd "tls.crt" | b64dec) "webhookKey" (get $wd "tls.key" | b64dec) "extenderCert" (get $ed "tls.crt" | b64dec) "extenderKey" (get $ed "tls.key" | b64dec) "clientCert" (get $cd "tls.crt" | b64dec) "clientKey" (get $cd "tls.key" | b64dec) -}}
{{- else -}}
{{- $days := int .Values.certificates.validityDays -}}
{{- $ca := genCA (printf "%s-ca" (include "gangplank.fullname" .)) $days -}}
{{- $webhookNames := include "gangplank.serviceDnsNames" (dict "root" . "component" "operator") | fromJsonArray -}}
{{- $extenderNames := include "gangplank.serviceDnsNames" (dict "root" . "component" "extender") | fromJsonArray -}}
{{- $webhookCert := genSignedCert (index $webhookNames 2) nil $webhookNames $days $ca -}}
{{- $extenderCert := genSignedCert (index $extenderNames 2) (list "127.0.0.1") (append $extenderNames "localhost") $days $ca -}}
{{- /* kube-scheduler's identity towards the extender; genSignedCert's certificates allow client auth. */ -}}
{{- $clientCert := genSignedCert (include "gangplank.componentName" (dict "root" . "component" "scheduler")) nil nil $days $ca -}}
{{- $tls = dict "ca" $ca.Cert "webhookCert" $webhookCert.Cert "webhookKey" $webhookCert.Key "extenderCert" $extenderCert.Cert "extenderKey" $extenderCert.Key "clientCert" $clientCert.Cert "clientKey" $clientCert.Key -}}
{{- end -}}
{{- $_ := set .Values "gangplankGeneratedTls" $tls -}}
{{- end -}}
{{- toJson .Values.gangplankGeneratedTls -}}
{{- end -}}

{{/* Is a TLS Secret needed at all? The webhook needs one when enabled, the extender when it serves HTTPS. */}}
{{- define "gangplank.needsWebhookTls" -}}
{{- if .Values.operator.webhook.enabled }}true{{ end -}}
{{- end -}}
{{- define "gangplank.needsExtenderTls" -}}
{{- if .Values.extender.tls.enabled }}true{{ end -}}
{{- end -}}

{{/* Mutual TLS between kube-scheduler and the extender: on with extender.tls.clientAuth (and TLS). */}}
{{- define "gangplank.needsSchedulerClientTls" -}}
{{- if and .Values.extender.tls.enabled .Values.extender.tls.clientAuth }}true{{ end -}}
{{- end -}}
{{- define "gangplank.schedulerClientTlsSecret" -}}
{{- include "gangplank.componentName" (dict "root" . "component" "scheduler-client-tls") -}}
{{- end -}}
{{- define "gangplank.schedulerClientMountPath" -}}/etc/gangplank/scheduler-client{{- end -}}
