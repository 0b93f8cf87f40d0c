package match

// SetBlockThresholds sets the thresholds of the blocked job lists and
// child orders (jobs.go) for a test of package match_test, and returns
// the function that restores them.
func SetBlockThresholds(block, jobs, order int) (restore func()) {
	b, j, o := jobBlock, bigJobs, bigOrder
	jobBlock, bigJobs, bigOrder = block, jobs, order
	return func() { jobBlock, bigJobs, bigOrder = b, j, o }
}
