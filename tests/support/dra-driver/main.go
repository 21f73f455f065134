// gangplank-dra-driver: a DRA test driver for KWOK nodes, which run no kubelet and so no real DRA driver.
// It publishes ResourceSlices for the nodes labelled gangplank.test/dra-gpus the way NVIDIA's GPU driver
// (driver gpu.nvidia.com) does, so the real kube-scheduler allocates devices on them. This file: flags,
// the API connection and the checks made before anything is published. README.md says what is published.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

const usage = `gangplank-dra-driver: publishes ResourceSlices shaped like NVIDIA's DRA driver's for the nodes
labelled gangplank.test/dra-gpus=<n> (KWOK nodes, which run no kubelet and so no real driver).

Node labels and annotations read:
  gangplank.test/dra-gpus=<n>           n whole GPUs gpu-0..gpu-<n-1>, in a pool named after the node
  gangplank.test/dra-mig=true           the GPUs are partitionable: MIG devices of H100 80GB's profiles too
  gangplank.test/dra-device-taints      annotation "gpu-3=key:value:effect,...": device taints
  gangplank.test/gpu-clique=<id>        annotation: the node is labelled nvidia.com/gpu.clique=<id>

Flags:
`

type options struct {
	kubeconfig           string
	driver               string
	createDeviceClasses  bool
	gpuMemory            string
	productName          string
	apiServerWaitSeconds int
	verbosity            int
}

func parseFlags(args []string) (options, gpuModel, error) {
	var o options
	fs := flag.NewFlagSet("gangplank-dra-driver", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the driver's identity (default: in-cluster configuration)")
	fs.StringVar(&o.driver, "driver", "gpu.nvidia.com", "DRA driver name published in spec.driver and used by the DeviceClasses' selectors")
	fs.BoolVar(&o.createDeviceClasses, "create-device-classes", true,
		"create or update the DeviceClasses of NVIDIA's chart: <driver> (type gpu, extendedResourceName nvidia.com/gpu) and mig.nvidia.com (type mig)")
	fs.StringVar(&o.gpuMemory, "gpu-memory", "80Gi", "memory of each GPU (its memory capacity and counter; MIG devices' memory is scaled to it)")
	fs.StringVar(&o.productName, "product-name", "NVIDIA H100 80GB HBM3", "productName attribute of every GPU and MIG device")
	fs.IntVar(&o.apiServerWaitSeconds, "api-server-wait-seconds", 20, "how long to wait for the API server at start before giving up")
	fs.IntVar(&o.verbosity, "v", 0, "log verbosity (klog); 0 logs what the driver publishes and problems, 5 every API call of the slice controllers")
	if err := fs.Parse(args); err != nil {
		return o, gpuModel{}, err
	}
	if fs.NArg() > 0 {
		return o, gpuModel{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if problems := validation.IsDNS1123Subdomain(o.driver); len(problems) > 0 {
		return o, gpuModel{}, fmt.Errorf("--driver %q: %s", o.driver, strings.Join(problems, "; "))
	}
	memory, err := resource.ParseQuantity(o.gpuMemory)
	if err != nil || memory.Sign() <= 0 || memory.Value() < 8<<20 {
		return o, gpuModel{}, fmt.Errorf("--gpu-memory %q: must be a quantity of at least 8Mi, e.g. 80Gi", o.gpuMemory)
	}
	if o.productName == "" || len(o.productName) > resourceapi.DeviceAttributeMaxValueLength {
		return o, gpuModel{}, fmt.Errorf("--product-name %q: must have 1..64 characters (a device attribute)", o.productName)
	}
	return o, gpuModel{productName: o.productName, memory: memory}, nil
}

func main() {
	o, model, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	} else if err != nil {
		fmt.Fprintf(os.Stderr, "gangplank-dra-driver: %v\n", err)
		os.Exit(2)
	}
	logFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(logFlags)
	_ = logFlags.Set("v", fmt.Sprint(o.verbosity))
	logger := klog.Background()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = klog.NewContext(ctx, logger)
	if err := run(ctx, o, model); err != nil {
		logger.Error(err, "gangplank-dra-driver failed")
		klog.Flush()
		os.Exit(1)
	}
	klog.Flush()
}

func run(ctx context.Context, o options, model gpuModel) error {
	logger := klog.FromContext(ctx)
	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	config.UserAgent = "gangplank-dra-driver"
	config.QPS, config.Burst = 50, 100
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}

	// The API server must answer, and serve resource.k8s.io/v1 (Kubernetes 1.34 and later).
	var lastErr error
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Duration(o.apiServerWaitSeconds)*time.Second, true,
		func(ctx context.Context) (bool, error) {
			_, lastErr = client.Discovery().ServerResourcesForGroupVersion("resource.k8s.io/v1")
			return lastErr == nil, nil
		})
	switch {
	case err != nil && apierrors.IsNotFound(lastErr):
		return fmt.Errorf("the API server at %s does not serve resource.k8s.io/v1 (Kubernetes 1.34 or later is needed)", config.Host)
	case err != nil:
		return fmt.Errorf("cannot reach the API server at %s within %ds: %v", config.Host, o.apiServerWaitSeconds, lastErr)
	}
	serverVersion, err := client.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("the API server at %s: %w", config.Host, err)
	}
	logger.Info("Starting", "server", config.Host, "serverVersion", serverVersion.GitVersion, "driver", o.driver,
		"productName", model.productName, "gpuMemory", model.memory.String())

	if o.createDeviceClasses {
		if err := ensureDeviceClasses(ctx, client, o.driver); err != nil {
			return err
		}
	}
	if err := runNodes(ctx, client, o.driver, model); err != nil {
		return err
	}
	logger.Info("Stopped")
	return nil
}
