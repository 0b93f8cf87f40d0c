package plugin

import (
	"os"
	"testing"

	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

func TestMain(m *testing.M) {
	metrics.Register()
	os.Exit(m.Run())
}
