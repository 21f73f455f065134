// The DeviceClasses NVIDIA's Helm chart installs for its GPU driver, created or brought back to this
// shape at start (--create-device-classes): one for whole GPUs, serving the extended resource
// nvidia.com/gpu from DRA (KEP-5004), and one for MIG devices.
package main

import (
	"context"
	"fmt"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

const extendedResourceName = "nvidia.com/gpu"

// deviceClasses are, for the default driver name, NVIDIA's `gpu.nvidia.com` and `mig.nvidia.com`.
func deviceClasses(driver string) []resourceapi.DeviceClass {
	class := func(name, deviceType string, extended *string) resourceapi.DeviceClass {
		return resourceapi.DeviceClass{
			ObjectMeta: metav1.ObjectMeta{
				Name:   name,
				Labels: map[string]string{"app.kubernetes.io/managed-by": "gangplank-dra-driver"},
			},
			Spec: resourceapi.DeviceClassSpec{
				Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
					Expression: fmt.Sprintf("device.driver == '%s' && device.attributes['%s'].type == '%s'", driver, driver, deviceType),
				}}},
				ExtendedResourceName: extended,
			},
		}
	}
	return []resourceapi.DeviceClass{
		class(driver, "gpu", ptr.To(extendedResourceName)),
		class("mig."+strings.TrimPrefix(driver, "gpu."), "mig", nil),
	}
}

// ensureDeviceClasses creates the classes, or updates those whose spec or labels differ.
func ensureDeviceClasses(ctx context.Context, client kubernetes.Interface, driver string) error {
	logger := klog.FromContext(ctx)
	api := client.ResourceV1().DeviceClasses()
	for _, want := range deviceClasses(driver) {
		var stored *resourceapi.DeviceClass
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			have, err := api.Get(ctx, want.Name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				stored, err = api.Create(ctx, &want, metav1.CreateOptions{})
				if err == nil {
					logger.Info("Created DeviceClass", "deviceClass", want.Name)
				}
				return err
			case err != nil:
				return err
			}
			labelsMatch := true
			for k, v := range want.Labels {
				labelsMatch = labelsMatch && have.Labels[k] == v
			}
			if apiequality.Semantic.DeepEqual(have.Spec, want.Spec) && labelsMatch {
				stored = have
				return nil
			}
			have.Spec = want.Spec
			if have.Labels == nil {
				have.Labels = map[string]string{}
			}
			for k, v := range want.Labels {
				have.Labels[k] = v
			}
			stored, err = api.Update(ctx, have, metav1.UpdateOptions{})
			if err == nil {
				logger.Info("Updated DeviceClass", "deviceClass", want.Name)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("DeviceClass %s: %w", want.Name, err)
		}
		// A server without DRAExtendedResource (before Kubernetes 1.36) drops the field silently.
		if want.Spec.ExtendedResourceName != nil && stored.Spec.ExtendedResourceName == nil {
			logger.Info("Warning: the API server dropped extendedResourceName (DRAExtendedResource is off there); pods cannot ask for it by extended resource",
				"deviceClass", want.Name, "extendedResourceName", *want.Spec.ExtendedResourceName)
		}
	}
	return nil
}
