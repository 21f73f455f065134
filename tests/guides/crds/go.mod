// Pins the CustomResourceDefinitions of the peer projects the guides submit to (Kubeflow training-operator's
// PyTorchJob, JobSet, KubeRay's RayJob and RayCluster): install.sh applies the CRD YAMLs of these module
// versions to the guides' control plane. Nothing here is built; go.sum pins the modules' content.
module gangplank.test/guides/crds

go 1.26.0

require (
	github.com/kubeflow/training-operator v1.8.1
	github.com/ray-project/kuberay/ray-operator v1.5.0
	sigs.k8s.io/jobset v0.11.0
)
