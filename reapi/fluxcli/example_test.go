package fluxcli_test

import (
	"errors"
	"fmt"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
	"github.com/gofluxion/gofluxion/reapi/types"
)

// oneCore asks for one core for an hour.
const oneCore = `version: 1
resources:
  - type: slot
    count: 1
    label: default
    with:
      - type: core
        count: 1
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`

// allNodes asks for the 8 nodes of the demo cluster, exclusively, for an
// hour.
const allNodes = `version: 1
resources:
  - type: node
    count: 8
    exclusive: true
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: 1
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`

// The fluxion-go flow: create a client, load a graph, match, inspect,
// cancel. The demo cluster is a GRUG recipe, the default load format.
func Example() {
	cli := fluxcli.NewReapiClient()
	defer cli.Destroy()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), `{"match_format": "simple"}`); err != nil {
		fmt.Println(err, cli.GetErrMsg())
		return
	}
	reserved, allocated, at, _, jobid, err := cli.MatchAllocate(false, oneCore)
	if err != nil {
		fmt.Println(err, cli.GetErrMsg())
		return
	}
	fmt.Println("jobid", jobid, "reserved", reserved, "at", at)
	fmt.Print(allocated)
	_, _, _, mode, _ := cli.Info(int64(jobid))
	fmt.Println(mode)
	if err := cli.Cancel(int64(jobid), false); err != nil {
		fmt.Println(err)
	}
	_, _, _, mode, _ = cli.Info(int64(jobid))
	fmt.Println(mode)
	// Output:
	// jobid 1 reserved false at 0
	//       ---------------core31[1:x]
	//       ------------socket1[1:s]
	//       ---------node7[1:s]
	//       ------rack1[1:s]
	//       ---demo0[1:s]
	// ALLOCATED
	// CANCELED
}

func ExampleReapiClient_MatchAllocate() {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), "{}"); err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 3; i++ {
		reserved, _, at, _, jobid, err := cli.MatchAllocate(true, allNodes)
		fmt.Println(jobid, reserved, at, err)
	}
	// Without orelseReserve a busy graph is an error.
	_, _, _, _, jobid, err := cli.MatchAllocate(false, allNodes)
	fmt.Println(jobid, errors.Is(err, fluxcli.ErrBusy))
	// Output:
	// 1 false 0 <nil>
	// 2 true 3600 <nil>
	// 3 true 7200 <nil>
	// 4 true
}

func ExampleReapiClient_Match() {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), `{"match_format": "rv1_nosched"}`); err != nil {
		fmt.Println(err)
		return
	}
	// Look without booking: the job id is -1 and nothing is recorded.
	_, R, _, _, jobid, err := cli.Match(types.MatchWithoutAllocating, oneCore)
	fmt.Println(jobid == fluxcli.WithoutAllocatingJobID, err)
	fmt.Print(R)
	// Output:
	// true <nil>
	// {"version": 1, "execution": {"R_lite": [{"rank": "7", "children": {"core": "31"}}], "nodelist": ["node7"], "starttime": 0, "expiration": 3600}}
}

func ExampleReapiClient_MatchSatisfy() {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), "{}"); err != nil {
		fmt.Println(err)
		return
	}
	sat, _, err := cli.MatchSatisfy(allNodes)
	fmt.Println(sat, err)
	sat, _, err = cli.MatchSatisfy(`{"version": 1, "resources": [{"type": "node", "count": 9, "with": [{"type": "slot", "count": 1, "label": "task", "with": [{"type": "core", "count": 1}]}]}], "attributes": {"system": {"duration": 60}}, "tasks": [{"command": ["app"], "slot": "task", "count": {"per_slot": 1}}]}`)
	fmt.Println(sat, err)
	// Output:
	// true <nil>
	// false <nil>
}

func ExampleReapiClient_Find() {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), "{}"); err != nil {
		fmt.Println(err)
		return
	}
	if err := cli.SetStatus("/demo0/rack0/node1", "down"); err != nil {
		fmt.Println(err)
	}
	s, err := cli.FindWithFormat("status=down", "rv1_nosched")
	fmt.Println(s, err)
	s, err = cli.FindWithFormat("status=down and names=node[0-3]", "pretty_simple")
	fmt.Println(s, err)
	// Output:
	// {"version":1,"execution":{"R_lite":[{"rank":"1","children":{"core":"0-31","gpu":"0-1"}}],"nodelist":["node1"],"starttime":0,"expiration":0}} <nil>
	// "      ---demo0[1:exclusive]\n      ------rack0[1:exclusive]\n      ---------node1[1:exclusive]\n" <nil>
}

// A restarted scheduler books the allocations it handed out before.
func ExampleReapiClient_UpdateAllocate() {
	before := fluxcli.NewReapiClient()
	if err := before.InitContext(string(gofluxion.DemoGraphML()), `{"match_format": "rv1"}`); err != nil {
		fmt.Println(err)
		return
	}
	_, R, _, _, jobid, _ := before.MatchAllocate(false, oneCore)

	after := fluxcli.NewReapiClient()
	if err := after.InitContext(string(gofluxion.DemoGraphML()), `{"match_format": "rv1"}`); err != nil {
		fmt.Println(err)
		return
	}
	at, _, Rout, err := after.UpdateAllocate(int(jobid), R)
	fmt.Println(at, Rout == R, err)
	_, _, _, mode, _ := after.Info(int64(jobid))
	fmt.Println(mode)
	// Output:
	// 0 true <nil>
	// ALLOCATED
}

func ExampleReapiClient_GetErrMsg() {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), "{}"); err != nil {
		fmt.Println(err)
		return
	}
	err := cli.Cancel(7, false)
	fmt.Println(errors.Is(err, fluxcli.ErrNotFound))
	cli.Info(8)
	fmt.Print(cli.GetErrMsg())
	cli.ClearErrMsg()
	fmt.Printf("%q\n", cli.GetErrMsg())
	// Output:
	// true
	// cancel: ERROR: nonexistent job 7
	// info: ERROR: nonexistent job 8
	// ""
}

func ExampleReapiClient_Clone() {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), "{}"); err != nil {
		fmt.Println(err)
		return
	}
	cli.MatchAllocate(false, allNodes)
	// What if job 1 were canceled?
	whatIf, _ := cli.Clone()
	whatIf.Cancel(1, false)
	_, _, at, _, _, _ := whatIf.MatchAllocate(true, allNodes)
	fmt.Println("clone: starts at", at)
	_, _, at, _, _, _ = cli.MatchAllocate(true, allNodes)
	fmt.Println("original: starts at", at)
	// Output:
	// clone: starts at 0
	// original: starts at 3600
}
