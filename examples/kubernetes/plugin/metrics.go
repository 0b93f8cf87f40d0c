package plugin

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Metrics, served on the kube-scheduler's own /metrics endpoint (the
// legacy registry): scheduler_gofluxion_*.
var (
	metricMatch = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: "scheduler", Subsystem: "gofluxion", Name: "match_duration_seconds",
		Help:           "Time to place a gang (matches, reservation and bookings), by result: placed, reserved, unschedulable, error.",
		Buckets:        metrics.ExponentialBuckets(0.0005, 2, 16),
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})
	metricWaiting = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace: "scheduler", Subsystem: "gofluxion", Name: "gangs_waiting",
		Help:           "Gangs whose last attempt (within 10 minutes) did not place them.",
		StabilityLevel: metrics.ALPHA,
	})
	metricReservations = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace: "scheduler", Subsystem: "gofluxion", Name: "reservations",
		Help:           "Reservations held by waiting gangs.",
		StabilityLevel: metrics.ALPHA,
	})
	metricVertices = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace: "scheduler", Subsystem: "gofluxion", Name: "graph_vertices",
		Help:           "Vertices of the resource graph.",
		StabilityLevel: metrics.ALPHA,
	})
	registerOnce sync.Once
)

// RegisterMetrics registers the plugin's metrics in the legacy registry
// (New does it).
func RegisterMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(metricMatch, metricWaiting, metricReservations, metricVertices)
	})
}
