// What one node publishes: the ResourceSlices of its pool, shaped like those of NVIDIA's DRA driver
// (kubernetes-sigs/dra-driver-nvidia-gpu): whole GPUs, or, on a MIG node, whole GPUs and their MIG
// partitions as partitionable devices (KEP-4815) drawing on one shared counter set per GPU. Pure: no
// API calls, so the shapes and the API's limits can be checked by `go test`.
package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/dynamic-resource-allocation/deviceattribute"
	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/utils/ptr"
)

// The node labels and annotations the driver reads.
const (
	gpusLabel         = "gangplank.test/dra-gpus"          // <n>: the node has n GPUs
	migLabel          = "gangplank.test/dra-mig"           // "true": the GPUs are partitionable into MIG devices
	taintsAnnotation  = "gangplank.test/dra-device-taints" // gpu-3=key:value:effect,...
	cliqueAnnotation  = "gangplank.test/gpu-clique"        // <id>: becomes the label below
	cliqueLabel       = "nvidia.com/gpu.clique"            // set by NVIDIA's compute-domain plugin on real nodes
	productAnnotation = "gangplank.test/dra-product"       // this node's GPUs' productName instead of --product-name
	maxGPUsPerNode    = 256
)

// The API's limits this file splits slices by (k8s.io/api v0.37.2, resource/v1/types.go).
const (
	maxCounterSetsPerSlice = resourceapi.ResourceSliceMaxCounterSets                 // 8
	maxDevicesPerSlice     = resourceapi.ResourceSliceMaxDevicesWithAdvancedFeatures // 64, once a device has taints or counters
	maxTaintsPerDevice     = resourceapi.DeviceTaintsMaxLength                       // 16
	memorySlicesPerGPU     = 8
	multiprocessorsPerGPU  = 132 // H100 SXM
)

// gpuModel is what every GPU of this driver reports (the flags set the product name and memory).
type gpuModel struct {
	productName string
	memory      resource.Quantity
}

// migProfile is one GPU-instance profile of an H100 80GB, as NVML reports it (`nvidia-smi mig -lgip`).
type migProfile struct {
	name            string  // "1g.10gb"
	id              int     // GPU instance profile id
	memorySlices    int     // memory slices it takes (its placement's size)
	multiprocessors int64   // SMs
	memoryMiB       float64 // its memory on an 80 GiB GPU; scaled to --gpu-memory
	placements      []int   // first memory slice of each placement
}

var h100Profiles = []migProfile{
	{name: "1g.10gb", id: 19, memorySlices: 1, multiprocessors: 16, memoryMiB: 9856, placements: []int{0, 1, 2, 3, 4, 5, 6}},
	{name: "2g.20gb", id: 14, memorySlices: 2, multiprocessors: 32, memoryMiB: 19968, placements: []int{0, 2, 4}},
	{name: "3g.40gb", id: 9, memorySlices: 4, multiprocessors: 60, memoryMiB: 40192, placements: []int{0, 4}},
	{name: "7g.80gb", id: 0, memorySlices: 8, multiprocessors: 132, memoryMiB: 80896, placements: []int{0}},
}

// nodeShape is what a node's labels and annotations ask for.
type nodeShape struct {
	gpus    int
	mig     bool
	product string                               // productName of this node's GPUs; "" for the driver's --product-name
	taints  map[string][]resourceapi.DeviceTaint // by device name; "gpu-3" also covers gpu-3's MIG devices
}

// shapeOf reads a node's labels and annotations. gpus == 0 means "no pool". Problems with the labels or
// the annotation are returned as warnings: the rest is still published.
func shapeOf(labels, annotations map[string]string) (nodeShape, []string) {
	var shape nodeShape
	var warnings []string
	value, ok := labels[gpusLabel]
	if !ok {
		return shape, nil
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 || n > maxGPUsPerNode {
		return shape, []string{fmt.Sprintf("label %s=%q is not a GPU count in 0..%d; no pool", gpusLabel, value, maxGPUsPerNode)}
	}
	shape.gpus = n
	shape.mig = labels[migLabel] == "true"
	shape.taints, warnings = parseTaints(annotations[taintsAnnotation])
	if product, ok := annotations[productAnnotation]; ok {
		if product == "" || len(product) > resourceapi.DeviceAttributeMaxValueLength {
			warnings = append(warnings, fmt.Sprintf("annotation %s=%q is not a product name of 1..%d characters; ignored",
				productAnnotation, product, resourceapi.DeviceAttributeMaxValueLength))
		} else {
			shape.product = product
		}
	}
	return shape, warnings
}

// parseTaints reads "gpu-3=gangplank.test/xid:79:NoExecute,gpu-5=key:NoSchedule" (device=key:value:effect,
// the value optional). Malformed entries are skipped with a warning.
func parseTaints(annotation string) (map[string][]resourceapi.DeviceTaint, []string) {
	taints := map[string][]resourceapi.DeviceTaint{}
	var warnings []string
	for _, entry := range strings.Split(annotation, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		device, spec, found := strings.Cut(entry, "=")
		parts := strings.Split(spec, ":")
		if !found || device == "" || len(parts) < 2 || len(parts) > 3 {
			warnings = append(warnings, fmt.Sprintf("%s: %q is not device=key:value:effect; skipped", taintsAnnotation, entry))
			continue
		}
		taint := resourceapi.DeviceTaint{Key: parts[0], Effect: resourceapi.DeviceTaintEffect(parts[len(parts)-1])}
		if len(parts) == 3 {
			taint.Value = parts[1]
		}
		var problems []string
		problems = append(problems, validation.IsQualifiedName(taint.Key)...)
		if taint.Value != "" {
			problems = append(problems, validation.IsValidLabelValue(taint.Value)...)
		}
		switch taint.Effect {
		case resourceapi.DeviceTaintEffectNone, resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute:
		default:
			problems = append(problems, "effect must be None, NoSchedule or NoExecute")
		}
		if len(taints[device]) >= maxTaintsPerDevice {
			problems = append(problems, fmt.Sprintf("more than %d taints on %s", maxTaintsPerDevice, device))
		}
		if len(problems) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: %q: %s; skipped", taintsAnnotation, entry, strings.Join(problems, "; ")))
			continue
		}
		// timeAdded is left to the API server, which sets it when the taint first appears; the
		// resourceslice controller keeps it on later updates.
		taints[device] = append(taints[device], taint)
	}
	return taints, warnings
}

// gpuUUID is a stable, made-up NVML-style UUID for GPU i of a node: the same every time the driver runs.
func gpuUUID(node string, i int) string {
	return "GPU-" + uuid.NewSHA1(uuid.NameSpaceOID, []byte(fmt.Sprintf("gangplank.test/dra-driver/%s/%d", node, i))).String()
}

// pcieRoot puts four GPUs behind each PCIe root complex, as on an HGX board.
func pcieRoot(i int) string { return fmt.Sprintf("pci0000:%02x", i/4) }

func str(s string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{StringValue: ptr.To(s)}
}
func version(v string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{VersionValue: ptr.To(v)}
}
func quantity(v int64) resource.Quantity { return *resource.NewQuantity(v, resource.DecimalSI) }

// commonAttributes are those a GPU and its MIG devices share (NVIDIA's CommonAttributesMig).
func commonAttributes(model gpuModel, i int) map[resourceapi.QualifiedName]resourceapi.DeviceAttribute {
	return map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
		"productName":           str(model.productName),
		"brand":                 str("Nvidia"),
		"architecture":          str("Hopper"),
		"cudaComputeCapability": version("9.0.0"),
		"driverVersion":         version("580.82.7"),
		"cudaDriverVersion":     version("13.0.0"),
		deviceattribute.StandardDeviceAttributePCIeRoot: str(pcieRoot(i)),
	}
}

func gpuDevice(node string, model gpuModel, i int) resourceapi.Device {
	attributes := commonAttributes(model, i)
	attributes["type"] = str("gpu")
	attributes["uuid"] = str(gpuUUID(node, i))
	return resourceapi.Device{
		Name:       fmt.Sprintf("gpu-%d", i),
		Attributes: attributes,
		Capacity:   map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: model.memory}},
	}
}

// migMemory is a profile's memory on a GPU of the model's memory (exact for 80 GiB), in whole MiB.
func migMemory(model gpuModel, p migProfile) resource.Quantity {
	mib := math.Floor(p.memoryMiB * float64(model.memory.Value()) / float64(80<<30))
	return *resource.NewQuantity(int64(mib)<<20, resource.BinarySI)
}

func counterSetName(i int) string { return fmt.Sprintf("gpu-%d-counter-set", i) }

// counters is what a device of `multiprocessors` SMs and `memory` bytes on memory slices
// [first, first+count) takes from its GPU's counter set (NVIDIA's addCountersForMemSlices).
func counters(multiprocessors int64, memory resource.Quantity, first, count int) map[string]resourceapi.Counter {
	c := map[string]resourceapi.Counter{
		"multiprocessors": {Value: quantity(multiprocessors)},
		"memory":          {Value: memory},
	}
	for s := first; s < first+count; s++ {
		c[fmt.Sprintf("memory-slice-%d", s)] = resourceapi.Counter{Value: quantity(1)}
	}
	return c
}

// partitionableGPU is GPU i of a MIG node: its counter set, the whole GPU consuming all of it, and every
// MIG device of every profile and placement consuming its share.
func partitionableGPU(node string, model gpuModel, i int) (resourceapi.CounterSet, []resourceapi.Device) {
	set := resourceapi.CounterSet{Name: counterSetName(i), Counters: counters(multiprocessorsPerGPU, model.memory, 0, memorySlicesPerGPU)}
	whole := gpuDevice(node, model, i)
	whole.Capacity["multiprocessors"] = resourceapi.DeviceCapacity{Value: quantity(multiprocessorsPerGPU)}
	whole.ConsumesCounters = []resourceapi.DeviceCounterConsumption{{CounterSet: set.Name, Counters: set.Counters}}
	devices := []resourceapi.Device{whole}
	for _, p := range h100Profiles {
		memory := migMemory(model, p)
		for _, start := range p.placements {
			attributes := commonAttributes(model, i)
			attributes["type"] = str("mig")
			attributes["profile"] = str(p.name)
			attributes["parentUUID"] = str(gpuUUID(node, i))
			devices = append(devices, resourceapi.Device{
				// NVIDIA's canonical name: gpu-<minor>-mig-<profile without dots>-<profile id>-<placement start>.
				Name:       fmt.Sprintf("gpu-%d-mig-%s-%d-%d", i, strings.ReplaceAll(p.name, ".", ""), p.id, start),
				Attributes: attributes,
				Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
					"multiprocessors": {Value: quantity(p.multiprocessors)},
					"memory":          {Value: memory},
				},
				ConsumesCounters: []resourceapi.DeviceCounterConsumption{{
					CounterSet: set.Name,
					Counters:   counters(p.multiprocessors, memory, start, p.memorySlices),
				}},
			})
		}
	}
	slices.SortFunc(devices, func(a, b resourceapi.Device) int { return strings.Compare(a.Name, b.Name) })
	return set, devices
}

// taint puts the node's taints on a device: those naming it, and, for a MIG device, those naming its GPU
// (a sick GPU fences its partitions too).
func taint(device *resourceapi.Device, shape nodeShape) {
	var taints []resourceapi.DeviceTaint
	if gpu, _, isMIG := strings.Cut(device.Name, "-mig-"); isMIG {
		taints = append(taints, shape.taints[gpu]...)
	}
	taints = append(taints, shape.taints[device.Name]...)
	if len(taints) > maxTaintsPerDevice {
		taints = taints[:maxTaintsPerDevice]
	}
	if len(taints) > 0 {
		device.Taints = taints
	}
}

// poolOf is the node's pool as the resourceslice controller publishes it, and warnings about taints naming
// devices the node does not have. Whole-GPU nodes: one slice per 64 GPUs. MIG nodes, as NVIDIA's driver
// does on Kubernetes 1.35+ (a slice holds devices or counter sets, not both): first the counter sets,
// eight to a slice, then one slice per GPU with its 14 devices.
func poolOf(node string, model gpuModel, shape nodeShape) (resourceslice.Pool, []string) {
	if shape.product != "" {
		model.productName = shape.product
	}
	var pool resourceslice.Pool
	var all []resourceapi.Device
	if !shape.mig {
		for i := 0; i < shape.gpus; i++ {
			all = append(all, gpuDevice(node, model, i))
		}
		for d := range all {
			taint(&all[d], shape)
		}
		for chunk := range slices.Chunk(all, maxDevicesPerSlice) {
			pool.Slices = append(pool.Slices, resourceslice.Slice{Devices: chunk})
		}
	} else {
		var sets []resourceapi.CounterSet
		var deviceSlices []resourceslice.Slice
		for i := 0; i < shape.gpus; i++ {
			set, devices := partitionableGPU(node, model, i)
			for d := range devices {
				taint(&devices[d], shape)
			}
			sets = append(sets, set)
			deviceSlices = append(deviceSlices, resourceslice.Slice{Devices: devices})
			all = append(all, devices...)
		}
		for chunk := range slices.Chunk(sets, maxCounterSetsPerSlice) {
			pool.Slices = append(pool.Slices, resourceslice.Slice{SharedCounters: chunk})
		}
		pool.Slices = append(pool.Slices, deviceSlices...)
	}
	var warnings []string
	for _, name := range slices.Sorted(maps.Keys(shape.taints)) {
		if !slices.ContainsFunc(all, func(d resourceapi.Device) bool { return d.Name == name }) {
			warnings = append(warnings, fmt.Sprintf("%s: the node has no device %q; its taints are not published", taintsAnnotation, name))
		}
	}
	return pool, warnings
}
