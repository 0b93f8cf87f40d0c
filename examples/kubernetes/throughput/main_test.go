package throughput

import (
	"flag"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain lets GOFLUXION_BENCH_V set klog's verbosity (for debugging).
func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if v := os.Getenv("GOFLUXION_BENCH_V"); v != "" {
		_ = fs.Set("v", v)
	}
	os.Exit(m.Run())
}
