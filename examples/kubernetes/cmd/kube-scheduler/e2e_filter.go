//go:build e2efilter

// The end-to-end test's scheduler (built with -tags e2efilter) also has
// E2ERejectNodes, a Filter plugin that rejects the nodes labelled
// e2e.gofluxion.io/reject=true: it stands for any later filter (volumes,
// ports, DRA) that refuses a node the graph does not know is unfit.

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

const (
	rejectNodesName  = "E2ERejectNodes"
	rejectNodesLabel = "e2e.gofluxion.io/reject"
)

func init() {
	extra = append(extra, app.WithPlugin(rejectNodesName, func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
		return rejectNodes{}, nil
	}))
}

type rejectNodes struct{}

func (rejectNodes) Name() string { return rejectNodesName }

func (rejectNodes) Filter(_ context.Context, _ fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	if ni.Node().Labels[rejectNodesLabel] == "true" {
		return fwk.NewStatus(fwk.Unschedulable, "node labelled "+rejectNodesLabel)
	}
	return nil
}
