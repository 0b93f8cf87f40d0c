// Command kube-scheduler is the stock kube-scheduler with the GoFluxion
// plugin compiled in: enable it in a KubeSchedulerConfiguration profile
// (see ../../README.md and ../../deploy/).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/gofluxion/gofluxion/examples/kubernetes/plugin"
)

// extra are more plugins, compiled in by build tags (e2e_filter.go).
var extra []app.Option

func main() {
	cmd := app.NewSchedulerCommand(append([]app.Option{app.WithPlugin(plugin.Name, plugin.New), app.WithPlugin(plugin.QueueSortName, plugin.NewQueueSort)}, extra...)...)
	os.Exit(cli.Run(cmd))
}
