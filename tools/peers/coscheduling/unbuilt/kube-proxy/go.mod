// Stands in for k8s.io/kube-proxy, whose v0.34.7 the module proxy does not serve; no package of it is
// built into the scheduler (go.mod says why).
module k8s.io/kube-proxy

go 1.24.0
