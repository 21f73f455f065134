// Checks the published shapes against the ResourceSlice limits of k8s.io/api v0.37.2 and the counter
// arithmetic of MIG placements (`go test ./...` in this folder); the real API server's acceptance is
// shown by running the driver on the real control plane (README.md).
package main

import (
	"fmt"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

var testModel = gpuModel{productName: "NVIDIA H100 80GB HBM3", memory: resource.MustParse("80Gi")}

func checkLimits(t *testing.T, pool []resourceapi.Device, slices [][]resourceapi.Device, sets [][]resourceapi.CounterSet) {
	t.Helper()
	counterSets := map[string]resourceapi.CounterSet{}
	for _, s := range sets {
		if len(s) > resourceapi.ResourceSliceMaxCounterSets {
			t.Errorf("a slice has %d counter sets", len(s))
		}
		for _, set := range s {
			if _, dup := counterSets[set.Name]; dup {
				t.Errorf("counter set %s twice", set.Name)
			}
			counterSets[set.Name] = set
			if len(set.Counters) > resourceapi.ResourceSliceMaxCountersPerCounterSet {
				t.Errorf("%s has %d counters", set.Name, len(set.Counters))
			}
		}
	}
	names := map[string]bool{}
	for _, devices := range slices {
		if len(devices) > resourceapi.ResourceSliceMaxDevicesWithAdvancedFeatures {
			t.Errorf("a slice has %d devices", len(devices))
		}
	}
	for _, d := range pool {
		if problems := validation.IsDNS1123Label(d.Name); len(problems) > 0 || names[d.Name] {
			t.Errorf("device name %q: %v (or a duplicate)", d.Name, problems)
		}
		names[d.Name] = true
		if n := len(d.Attributes) + len(d.Capacity); n > resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
			t.Errorf("%s has %d attributes and capacities", d.Name, n)
		}
		if len(d.ConsumesCounters) > resourceapi.ResourceSliceMaxDeviceCounterConsumptionsPerDevice {
			t.Errorf("%s consumes from %d counter sets", d.Name, len(d.ConsumesCounters))
		}
		for _, c := range d.ConsumesCounters {
			set, ok := counterSets[c.CounterSet]
			if !ok {
				t.Errorf("%s consumes from the unknown counter set %s", d.Name, c.CounterSet)
			}
			for name, v := range c.Counters {
				if have, ok := set.Counters[name]; !ok || v.Value.Cmp(have.Value) > 0 {
					t.Errorf("%s consumes %v %s of %s's %v", d.Name, &v.Value, name, c.CounterSet, &have.Value)
				}
			}
		}
		for _, a := range d.Attributes {
			if a.StringValue != nil && len(*a.StringValue) > resourceapi.DeviceAttributeMaxValueLength {
				t.Errorf("%s: attribute value %q too long", d.Name, *a.StringValue)
			}
		}
	}
}

func flatten(t *testing.T, node string, shape nodeShape) []resourceapi.Device {
	t.Helper()
	pool, warnings := poolOf(node, testModel, shape)
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	var all []resourceapi.Device
	var slices [][]resourceapi.Device
	var sets [][]resourceapi.CounterSet
	for _, s := range pool.Slices {
		if len(s.Devices) > 0 && len(s.SharedCounters) > 0 {
			t.Errorf("a slice has both devices and counter sets")
		}
		all = append(all, s.Devices...)
		slices = append(slices, s.Devices)
		sets = append(sets, s.SharedCounters)
	}
	checkLimits(t, all, slices, sets)
	return all
}

func TestWholeGPUs(t *testing.T) {
	devices := flatten(t, "node-a", nodeShape{gpus: 130})
	if len(devices) != 130 || devices[0].Name != "gpu-0" || devices[129].Name != "gpu-129" {
		t.Fatalf("devices: %d, first %s", len(devices), devices[0].Name)
	}
	d := devices[5]
	memory := d.Capacity["memory"].Value
	if *d.Attributes["type"].StringValue != "gpu" || *d.Attributes["resource.kubernetes.io/pcieRoot"].StringValue != "pci0000:01" ||
		*d.Attributes["cudaComputeCapability"].VersionValue != "9.0.0" || memory.String() != "80Gi" {
		t.Errorf("gpu-5: %+v", d)
	}
	if a, b := gpuUUID("node-a", 5), gpuUUID("node-a", 5); a != b || !strings.HasPrefix(a, "GPU-") || a == gpuUUID("node-b", 5) {
		t.Errorf("UUIDs %s %s", a, b)
	}
}

func TestMIG(t *testing.T) {
	devices := flatten(t, "node-m", nodeShape{gpus: 17, mig: true})
	if len(devices) != 17*14 {
		t.Fatalf("%d devices", len(devices))
	}
	byName := map[string]resourceapi.Device{}
	for _, d := range devices {
		byName[d.Name] = d
	}
	for _, name := range []string{"gpu-3", "gpu-3-mig-1g10gb-19-6", "gpu-3-mig-2g20gb-14-4", "gpu-3-mig-3g40gb-9-4", "gpu-3-mig-7g80gb-0-0"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("no device %s", name)
		}
	}
	mig := byName["gpu-3-mig-1g10gb-19-6"]
	migMemory, migSMs := mig.Capacity["memory"].Value, mig.Capacity["multiprocessors"].Value
	if *mig.Attributes["profile"].StringValue != "1g.10gb" || *mig.Attributes["parentUUID"].StringValue != gpuUUID("node-m", 3) ||
		migMemory.String() != "9856Mi" || migSMs.String() != "16" {
		t.Errorf("%s: %+v", mig.Name, mig)
	}
	// Seven 1g.10gb fit on one GPU's counters together; the whole GPU, or a 7g.80gb, fit alone.
	fits := func(names ...string) bool {
		used := map[string]int64{}
		for _, n := range names {
			for name, c := range byName[n].ConsumesCounters[0].Counters {
				used[name] += c.Value.Value()
			}
		}
		set, _ := partitionableGPU("node-m", testModel, 3)
		for name, v := range used {
			if have := set.Counters[name].Value; v > have.Value() {
				return false
			}
		}
		return true
	}
	var sevenSmall []string
	for p := 0; p < 7; p++ {
		sevenSmall = append(sevenSmall, fmt.Sprintf("gpu-3-mig-1g10gb-19-%d", p))
	}
	if !fits(sevenSmall...) || !fits("gpu-3") || !fits("gpu-3-mig-3g40gb-9-0", "gpu-3-mig-3g40gb-9-4") {
		t.Errorf("partitions that fit together do not")
	}
	if fits("gpu-3", "gpu-3-mig-1g10gb-19-0") || fits("gpu-3-mig-2g20gb-14-0", "gpu-3-mig-1g10gb-19-1") || fits(append(sevenSmall, "gpu-3-mig-1g10gb-19-0")...) {
		t.Errorf("overlapping partitions fit together")
	}
}

func TestTaints(t *testing.T) {
	shape, warnings := shapeOf(map[string]string{gpusLabel: "8", migLabel: "true"},
		map[string]string{taintsAnnotation: "gpu-3=gangplank.test/xid:79:NoExecute, gpu-5=gangplank.test/fenced:NoSchedule,gpu-9=a:b:None,bad,gpu-1=k:v:PreferNoSchedule"})
	if len(warnings) != 2 {
		t.Errorf("warnings: %v", warnings)
	}
	pool, warnings := poolOf("node-t", testModel, shape)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "gpu-9") {
		t.Errorf("warnings: %v", warnings)
	}
	tainted := map[string]string{}
	for _, s := range pool.Slices {
		for _, d := range s.Devices {
			for _, taint := range d.Taints {
				tainted[d.Name] = taint.Key + "=" + taint.Value + ":" + string(taint.Effect)
			}
		}
	}
	if tainted["gpu-3"] != "gangplank.test/xid=79:NoExecute" || tainted["gpu-3-mig-1g10gb-19-2"] != "gangplank.test/xid=79:NoExecute" ||
		tainted["gpu-5"] != "gangplank.test/fenced=:NoSchedule" || len(tainted) != 28 {
		t.Errorf("tainted: %v", tainted)
	}
}
