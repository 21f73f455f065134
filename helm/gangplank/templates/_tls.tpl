{{/*
The chart's own certificates (certificates.mode=selfSigned): one CA and, signed by it, a certificate for
the webhook Service, one for the extender (its Service names, localhost and 127.0.0.1, so both extender
modes verify) and, with extender.tls.clientAuth, kube-scheduler's client certificate for the extender's
mutual TLS (the extender trusts ca.crt of its own Secret).
The CA, key included, lives in its own Secret (gangplank.selfSignedCaSecret, kept by Helm on uninstall).
On every install and upgrade the Secrets in the cluster are read (lookup):
  * the CA is kept while its Secret holds a certificate and key that are more than
    certificates.renewBeforeDays from expiry; otherwise (first install, the Secret deleted to rotate it,
    or near expiry) a new CA is issued for certificates.caValidityDays;
  * each leaf is kept while its Secret holds a certificate and key, its ca.crt is that CA and it is more
    than renewBeforeDays from expiry; otherwise it is signed anew by the CA (buildCustomCert +
    genSignedCert) for certificates.validityDays, never past the CA's own expiry.
So deleting one leaf Secret and upgrading rotates that leaf alone, with the caBundle unchanged; deleting the
CA Secret rotates everything. Expiry is read from the annotation gangplank.io/not-after the chart writes
on each Secret (Helm cannot parse certificates); a Secret without it never expires early.
`helm template`, which cannot look, issues everything anew on each render.
Generated once per render and shared by every template through a memo in .Values. Returns JSON:
{"ca", "caKey", "caNotAfter", "webhookCert", "webhookKey", "webhookNotAfter", "extenderCert",
"extenderKey", "extenderNotAfter", "clientCert", "clientKey", "clientNotAfter"}, PEM strings and RFC 3339
times ("" for a certificate this release does not need).
*/}}
{{- define "gangplank.selfSignedTls" -}}
{{- if not (hasKey .Values "gangplankGeneratedTls") -}}
{{- $c := .Values.certificates -}}
{{- /* Defaults here too: `helm upgrade --reuse-values` from a release whose chart had no such values
brings that chart's values.yaml, without them. */ -}}
{{- $caDays := int (default 3650 $c.caValidityDays) -}}
{{- $days := int (default 365 $c.validityDays) -}}
{{- if gt $days $caDays -}}
{{- fail (printf "certificates.validityDays (%d) is longer than certificates.caValidityDays (%d): a certificate cannot outlive the CA that signs it" $days $caDays) -}}
{{- end -}}
{{- $renewDays := int (default 30 $c.renewBeforeDays) -}}
{{- if ge $renewDays $days -}}
{{- fail (printf "certificates.renewBeforeDays (%d) must be shorter than certificates.validityDays (%d), or every upgrade re-issues the certificates" $renewDays $days) -}}
{{- end -}}
{{- $now := now -}}
{{- $renew := mul $renewDays 86400 -}}
{{- $kept := lookup "v1" "Secret" .Release.Namespace (include "gangplank.selfSignedCaSecret" .) | default dict -}}
{{- $kd := get $kept "data" | default dict -}}
{{- $caLeft := include "gangplank.tlsSecondsLeft" (dict "secret" $kept "now" $now) -}}
{{- $ca := dict -}}
{{- $caNotAfter := "" -}}
{{- if and (get $kd "tls.crt") (get $kd "tls.key") (or (eq $caLeft "") (gt (atoi $caLeft) $renew)) -}}
{{- $ca = buildCustomCert (get $kd "tls.crt") (get $kd "tls.key") -}}
{{- $caNotAfter = dig "metadata" "annotations" "gangplank.io/not-after" "" $kept -}}
{{- else -}}
{{- $ca = genCA (printf "%s-ca" (include "gangplank.fullname" .)) $caDays -}}
{{- $caNotAfter = include "gangplank.notAfter" (dict "now" $now "days" $caDays) -}}
{{- $caLeft = mul $caDays 86400 | toString -}}
{{- end -}}
{{- /* A leaf signed near the CA's end expires with it (and is renewed with it). */ -}}
{{- if $caLeft -}}
{{- $days = int (min $days (div (atoi $caLeft) 86400)) -}}
{{- end -}}
{{- $common := dict "root" . "ca" $ca "days" $days "now" $now "renew" $renew -}}
{{- $tls := dict "ca" $ca.Cert "caKey" $ca.Key "caNotAfter" $caNotAfter -}}
{{- range $leaf := list "webhook" "extender" "client" -}}
{{- range $field := list "Cert" "Key" "NotAfter" -}}
{{- $_ := set $tls (print $leaf $field) "" -}}
{{- end -}}
{{- end -}}
{{- if include "gangplank.needsWebhookTls" . -}}
{{- $names := include "gangplank.serviceDnsNames" (dict "root" . "component" "operator") | fromJsonArray -}}
{{- $leaf := include "gangplank.selfSignedLeaf" (dict "common" $common "secret" (include "gangplank.webhookTlsSecret" .) "cn" (index $names 2) "ips" (list) "dns" $names) | fromJson -}}
{{- $_ := set $tls "webhookCert" $leaf.cert -}}
{{- $_ = set $tls "webhookKey" $leaf.key -}}
{{- $_ = set $tls "webhookNotAfter" $leaf.notAfter -}}
{{- end -}}
{{- if include "gangplank.needsExtenderTls" . -}}
{{- $names := include "gangplank.serviceDnsNames" (dict "root" . "component" "extender") | fromJsonArray -}}
{{- $leaf := include "gangplank.selfSignedLeaf" (dict "common" $common "secret" (include "gangplank.extenderTlsSecret" .) "cn" (index $names 2) "ips" (list "127.0.0.1") "dns" (append $names "localhost")) | fromJson -}}
{{- $_ := set $tls "extenderCert" $leaf.cert -}}
{{- $_ = set $tls "extenderKey" $leaf.key -}}
{{- $_ = set $tls "extenderNotAfter" $leaf.notAfter -}}
{{- end -}}
{{- if include "gangplank.needsSchedulerClientTls" . -}}
{{- /* kube-scheduler's identity towards the extender; genSignedCert's certificates allow client auth. */ -}}
{{- $leaf := include "gangplank.selfSignedLeaf" (dict "common" $common "secret" (include "gangplank.schedulerClientTlsSecret" .) "cn" (include "gangplank.componentName" (dict "root" . "component" "scheduler")) "ips" (list) "dns" (list)) | fromJson -}}
{{- $_ := set $tls "clientCert" $leaf.cert -}}
{{- $_ = set $tls "clientKey" $leaf.key -}}
{{- $_ = set $tls "clientNotAfter" $leaf.notAfter -}}
{{- end -}}
{{- $_ := set .Values "gangplankGeneratedTls" $tls -}}
{{- end -}}
{{- toJson .Values.gangplankGeneratedTls -}}
{{- end -}}

{{/*
One leaf certificate of selfSignedTls: kept from its Secret, or signed anew by the CA. Call with
(dict "common" (dict "root" $ "ca" ca "days" n "now" t "renew" seconds) "secret" name "cn" cn "ips" list
"dns" list). Returns JSON {"cert", "key", "notAfter"}.
*/}}
{{- define "gangplank.selfSignedLeaf" -}}
{{- $c := .common -}}
{{- $kept := lookup "v1" "Secret" $c.root.Release.Namespace .secret | default dict -}}
{{- $d := get $kept "data" | default dict -}}
{{- $left := include "gangplank.tlsSecondsLeft" (dict "secret" $kept "now" $c.now) -}}
{{- $current := or (eq $left "") (gt (atoi $left) $c.renew) -}}
{{- if and (get $d "tls.crt") (get $d "tls.key") (eq (get $d "ca.crt") ($c.ca.Cert | b64enc)) $current -}}
{{- dict "cert" (get $d "tls.crt" | b64dec) "key" (get $d "tls.key" | b64dec) "notAfter" (dig "metadata" "annotations" "gangplank.io/not-after" "" $kept) | toJson -}}
{{- else -}}
{{- $cert := genSignedCert .cn .ips .dns $c.days $c.ca -}}
{{- dict "cert" $cert.Cert "key" $cert.Key "notAfter" (include "gangplank.notAfter" (dict "now" $c.now "days" $c.days)) | toJson -}}
{{- end -}}
{{- end -}}

{{/* Seconds until a Secret's certificate expires, by its gangplank.io/not-after annotation ("" without one). */}}
{{- define "gangplank.tlsSecondsLeft" -}}
{{- $at := dig "metadata" "annotations" "gangplank.io/not-after" "" .secret -}}
{{- if $at -}}
{{- sub (toDate "2006-01-02T15:04:05Z07:00" $at).Unix .now.Unix -}}
{{- end -}}
{{- end -}}

{{/* The expiry of a certificate issued at .now for .days days, RFC 3339 in UTC. */}}
{{- define "gangplank.notAfter" -}}
{{- dateInZone "2006-01-02T15:04:05Z" (dateModify (printf "+%dh" (mul .days 24)) .now) "UTC" -}}
{{- end -}}

{{/* The Secret of the chart's CA (selfSigned): tls.crt and tls.key. */}}
{{- define "gangplank.selfSignedCaSecret" -}}
{{- include "gangplank.componentName" (dict "root" . "component" "self-signed-ca") -}}
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
