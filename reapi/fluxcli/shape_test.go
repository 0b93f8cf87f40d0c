package fluxcli_test

import (
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
)

// Issue 21 item 1: reapi keeps Fluxion's answers for requests whose slot
// sits a level above its contents (node→slot→core where cores sit under
// sockets): satisfiable, and then no match, forever, where the root
// package answers ErrUnsatisfiable.
func TestDeepSlotStaysFluxionExact(t *testing.T) {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), `{"load_format": "grug"}`); err != nil {
		t.Fatalf("%v: %s", err, cli.GetErrMsg())
	}
	js := `version: 1
resources:
  - type: node
    count: 2
    with:
      - type: slot
        count: 1
        label: task
        with:
          - {type: core, count: 4}
attributes: {system: {duration: 3600}}
tasks: [{command: [app], slot: task, count: {per_slot: 1}}]
`
	sat, _, err := cli.MatchSatisfy(js)
	if err != nil || !sat {
		t.Errorf("MatchSatisfy = %v, %v (%s); Fluxion says satisfiable", sat, err, cli.GetErrMsg())
	}
	for i := 0; i < 2; i++ {
		_, R, _, _, _, err := cli.MatchAllocate(false, js)
		if err == nil && R != "" {
			t.Errorf("MatchAllocate allocated %s; Fluxion finds no matching resources", R)
		}
	}
}
