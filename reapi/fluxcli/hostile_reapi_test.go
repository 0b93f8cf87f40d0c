package fluxcli_test

import (
	"errors"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
)

const hostileSpec = `{"version":1,"resources":[{"type":"node","count":1,"with":[{"type":"slot","count":1,"label":"s","with":[{"type":"socket","count":1,"with":[{"type":"core","count":1}]}]}]}],"attributes":{"system":{"duration":3600}},"tasks":[{"command":["a"],"slot":"s","count":{"per_slot":1}}]}`

// Before: UpdateAllocate(-1, R) booked job 2^64-1, which Cancel(-1)
// refuses with EOVERFLOW: a booking fluence-style code could never free.
func TestHostileUpdateAllocateNegativeIDRefused(t *testing.T) {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), `{"load_format":"grug","match_format":"rv1"}`); err != nil {
		t.Fatal(err)
	}
	_, R, _, _, id, err := cli.MatchAllocate(false, hostileSpec)
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Cancel(id, false); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = cli.UpdateAllocate(-1, R)
	if !errors.Is(err, fluxcli.ErrInvalid) {
		t.Fatalf("UpdateAllocate(-1): %v, want ErrInvalid", err)
	}
	if _, _, _, _, err := cli.Info(-1); !errors.Is(err, fluxcli.ErrNotFound) {
		t.Errorf("Info(-1) after the refused update: %v, want ErrNotFound", err)
	}
	if out, err := cli.Find("sched-now=allocated"); err != nil || out != "null" && out != "" && out != `""` {
		t.Errorf("something is still allocated: %q, %v", out, err)
	}
}
