// Watches Nodes and keeps, for every node labelled gangplank.test/dra-gpus, one resourceslice controller
// publishing that node's pool, as the driver's kubelet plugin would on a real node (the controller is
// owned by the Node, so it sets spec.nodeName and the garbage collector removes the slices with the node).
// Also copies the gangplank.test/gpu-clique annotation into the nvidia.com/gpu.clique label.
package main

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// publisher is one node's resourceslice controller and what it was last asked to publish.
type publisher struct {
	uid        types.UID
	controller *resourceslice.Controller
	shape      nodeShape
}

type nodeReconciler struct {
	client kubernetes.Interface
	driver string
	model  gpuModel
	nodes  corelisters.NodeLister
	queue  workqueue.TypedRateLimitingInterface[string]

	mu         sync.Mutex
	publishers map[string]*publisher // by node name
	warned     map[string]string     // the warnings last logged for a node
}

// workers reconcile nodes in parallel (a controller takes about a second to start: its informer's first
// sync). The work queue never hands one node to two workers, so a node's old controller is always gone
// before a new one starts (two would fight over its slices).
const workers = 8

// runNodes watches Nodes until ctx ends.
func runNodes(ctx context.Context, client kubernetes.Interface, driver string, model gpuModel) error {
	logger := klog.FromContext(ctx)
	factory := informers.NewSharedInformerFactory(client, 0)
	informer := factory.Core().V1().Nodes()
	r := &nodeReconciler{
		client: client, driver: driver, model: model, nodes: informer.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "nodes"}),
		publishers: map[string]*publisher{},
		warned:     map[string]string{},
	}
	defer r.queue.ShutDown()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			r.queue.Add(key)
		}
	}
	handler, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), handler.HasSynced) {
		return errors.New("the Node informer did not sync")
	}

	// Every node once, then the slices of nodes that no longer publish (the driver was down when their
	// label went) are removed. The queue, which holds every node too by now, repeats this at no cost.
	nodes, err := r.nodes.List(labels.Everything())
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, workers)
	for _, node := range nodes {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			if err := r.reconcile(ctx, node.Name); err != nil {
				logger.Error(err, "Reconciling node failed; will retry", "node", node.Name)
				r.queue.AddRateLimited(node.Name)
			}
		})
	}
	wg.Wait()
	if err := r.removeOrphans(ctx); err != nil {
		logger.Error(err, "Could not remove the slices of nodes without a pool")
	}
	r.mu.Lock()
	logger.Info("Watching nodes", "label", gpusLabel, "publishing", len(r.publishers))
	r.mu.Unlock()

	for range workers {
		wg.Go(func() {
			for r.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	r.queue.ShutDown()
	wg.Wait()
	// Leave the slices in place on exit, as a kubelet plugin's restart does: the next run adopts them.
	for _, p := range r.publishers {
		p.controller.Stop()
	}
	return nil
}

func (r *nodeReconciler) publisher(name string) *publisher {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.publishers[name]
}

func (r *nodeReconciler) processNext(ctx context.Context) bool {
	name, shutdown := r.queue.Get()
	if shutdown {
		return false
	}
	defer r.queue.Done(name)
	if err := r.reconcile(ctx, name); err != nil {
		klog.FromContext(ctx).Error(err, "Reconciling node failed; will retry", "node", name)
		r.queue.AddRateLimited(name)
		return true
	}
	r.queue.Forget(name)
	return true
}

func (r *nodeReconciler) reconcile(ctx context.Context, name string) error {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "node", name)
	ctx = klog.NewContext(ctx, logger)
	node, err := r.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		r.mu.Lock()
		delete(r.warned, name)
		r.mu.Unlock()
		return r.retire(ctx, name, "node deleted")
	} else if err != nil {
		return err
	}
	if err := r.labelClique(ctx, node); err != nil {
		return err
	}
	shape, warnings := shapeOf(node.Labels, node.Annotations)
	var pool resourceslice.Pool
	if shape.gpus > 0 {
		var more []string
		pool, more = poolOf(name, r.model, shape)
		warnings = append(warnings, more...)
	}
	// Problems with a node's labels are said once, not on every update of the node.
	r.mu.Lock()
	joined := strings.Join(warnings, "\n")
	changed := joined != r.warned[name]
	r.warned[name] = joined
	r.mu.Unlock()
	if changed {
		for _, w := range warnings {
			logger.Info("Warning: " + w)
		}
	}

	p := r.publisher(name)
	if p != nil && p.uid != node.UID {
		if err := r.retire(ctx, name, "node recreated"); err != nil {
			return err
		}
		p = nil
	}
	switch {
	case shape.gpus == 0:
		return r.retire(ctx, name, "label "+gpusLabel+" removed")
	case p != nil && reflect.DeepEqual(p.shape, shape):
		return nil
	}
	resources := &resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{name: pool}}
	if p == nil {
		controller, err := resourceslice.StartController(ctx, resourceslice.Options{
			DriverName:   r.driver,
			KubeClient:   r.client,
			Owner:        &resourceslice.Owner{APIVersion: "v1", Kind: "Node", Name: name, UID: node.UID},
			Resources:    resources,
			SyncDelay:    ptr.To(time.Second),
			ErrorHandler: sliceErrorHandler(name),
		})
		if err != nil {
			return fmt.Errorf("starting its ResourceSlice controller: %w", err)
		}
		p = &publisher{uid: node.UID, controller: controller}
		r.mu.Lock()
		r.publishers[name] = p
		r.mu.Unlock()
	} else {
		p.controller.Update(resources)
	}
	p.shape = shape
	logger.Info("Publishing pool", "gpus", shape.gpus, "mig", shape.mig, "slices", len(pool.Slices), "taintedDevices", len(shape.taints))
	return nil
}

// retire empties a node's pool, waits until its slices are gone, then stops its controller.
func (r *nodeReconciler) retire(ctx context.Context, name, why string) error {
	p := r.publisher(name)
	if p == nil {
		return nil
	}
	p.controller.Update(nil)
	p.shape = nodeShape{} // whatever comes next differs from this
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := r.client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
			resourceapi.ResourceSliceSelectorDriver: r.driver, resourceapi.ResourceSliceSelectorNodeName: name}.String()})
		return err == nil && len(list.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("its slices were not removed: %w", err)
	}
	p.controller.Stop()
	r.mu.Lock()
	delete(r.publishers, name)
	r.mu.Unlock()
	klog.FromContext(ctx).Info("Removed pool", "reason", why)
	return nil
}

// removeOrphans deletes this driver's slices on nodes without a publisher.
func (r *nodeReconciler) removeOrphans(ctx context.Context) error {
	list, err := r.client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorDriver, r.driver).String()})
	if err != nil {
		return err
	}
	for _, slice := range list.Items {
		if slice.Spec.NodeName == nil || r.publisher(*slice.Spec.NodeName) != nil {
			continue
		}
		err := r.client.ResourceV1().ResourceSlices().Delete(ctx, slice.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		klog.FromContext(ctx).Info("Removed a slice of a node without a pool", "slice", slice.Name, "node", *slice.Spec.NodeName)
	}
	return nil
}

// labelClique sets nvidia.com/gpu.clique from the gangplank.test/gpu-clique annotation, unless the node
// already has that label (whatever its value).
func (r *nodeReconciler) labelClique(ctx context.Context, node *corev1.Node) error {
	id, annotated := node.Annotations[cliqueAnnotation]
	if _, labelled := node.Labels[cliqueLabel]; !annotated || labelled {
		return nil
	}
	if problems := validation.IsValidLabelValue(id); len(problems) > 0 {
		klog.FromContext(ctx).Info("Warning: annotation is not a label value; not labelling", "annotation", cliqueAnnotation, "value", id, "problems", problems)
		return nil
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, cliqueLabel, id)
	if _, err := r.client.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("labelling %s=%s: %w", cliqueLabel, id, err)
	}
	klog.FromContext(ctx).Info("Labelled clique", "label", cliqueLabel, "clique", id)
	return nil
}

// sliceErrorHandler logs what the resourceslice controller could not publish, naming the features a
// server lacks when it dropped fields (e.g. partitionable devices or device taints on Kubernetes 1.35).
func sliceErrorHandler(node string) func(ctx context.Context, err error, msg string) {
	return func(ctx context.Context, err error, msg string) {
		var dropped *resourceslice.DroppedFieldsError
		if errors.As(err, &dropped) {
			klog.FromContext(ctx).Error(nil, "The API server dropped fields of a slice; its features are off there",
				"node", node, "disabledFeatures", dropped.DisabledFeatures())
			return
		}
		klog.FromContext(ctx).Error(err, msg, "node", node)
	}
}
