package fluxcli_test

import (
	"strings"
	"testing"
)

// Issue 12: after a match rejected for its negative duration, Fluxion's
// next match behaves as if the rejected jobspec's exclusivity (here its
// exclusive node) were still in force; reapi gives Fluxion's answers.
func TestNegativeDurationExclusivityLeftover(t *testing.T) {
	cli := newClient(t, 2, 4, `"matcher_policy": "high", "match_format": "simple"`)
	bad := `version: 1
resources:
  - type: slot
    count: 1
    label: default
    with:
      - type: node
        count: 1
        exclusive: true
        with:
          - type: core
            count: 1
attributes:
  system:
    duration: -12
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`
	if _, _, _, _, _, err := cli.MatchAllocate(false, bad); err == nil {
		t.Fatal("negative duration accepted")
	}
	good := `version: 1
resources:
  - type: node
    count: 1
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: 1
attributes:
  system:
    duration: 60
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`
	_, R, _, _, _, err := cli.MatchAllocate(false, good)
	if err != nil {
		t.Fatalf("%v: %s", err, cli.GetErrMsg())
	}
	if !strings.Contains(R, "node1[1:x]") {
		t.Errorf("the node is not taken exclusively after the rejected match:\n%s", R)
	}
}
