package jobspec_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/gofluxion/gofluxion/jobspec"
)

func ExampleParse() {
	js, err := jobspec.Parse([]byte(`version: 9999
resources:
  - type: node
    count: 1
    with:
      - type: slot
        label: default
        count: {min: 2, max: 8, operator: "+", operand: 2}
        with:
          - type: core
            count: 4
attributes:
  system:
    duration: 3600
    constraints:
      properties: ["foo"]
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`), jobspec.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	slot := js.Resources[0].With[0]
	fmt.Println(js.Version, js.Duration, slot.Type, slot.Label, slot.Count, slot.With[0].Count)
	fmt.Println(js.Constraint.Match("node0", 0, func(p string) bool { return p == "foo" }))

	_, err = jobspec.Parse([]byte("version: 1\nresources:\n  - type: node\n    count: -2\nattributes:\ntasks: []\n"), jobspec.Options{})
	fmt.Println(err)
	_, err = jobspec.Parse([]byte("version: 1\nresources: [{type: slot, count: 1}]\nattributes:\ntasks: []\n"), jobspec.Options{})
	fmt.Println(err)
	// Output:
	// 9999 3600 slot default {2,8,+,2} 4
	// true
	// yaml-cpp: error at line 4, column 12: bad conversion
	// All slots must be labeled
}

func ExampleCount_Calc() {
	// 18 cores are available.
	for _, c := range []jobspec.Count{
		jobspec.Fixed(4), // exactly 4
		{Min: 2, Max: 7, Operator: '+', Operand: 2},   // 2, 4, 6 (7 is not 2+2k)
		{Min: 2, Max: 17, Operator: '*', Operand: 3},  // 2, 6 (18 > 17)
		{Min: 2, Max: 100, Operator: '^', Operand: 2}, // 2, 4, 16 (256 > 18)
		jobspec.Fixed(20), // not satisfiable
	} {
		fmt.Println(c, c.Calc(18), c.EffectiveMax())
	}
	// Output:
	// 4 4 4
	// {2,7,+,2} 6 6
	// {2,17,*,3} 6 6
	// {2,100,^,2} 16 16
	// 20 0 20
}

func ExampleError_Detail() {
	_, err := jobspec.Parse([]byte(`version: 1
resources:
  - type: node
    count: 1
    with:
      - type: socket
        count: 1
      - type: core
        count: {min: 0}
attributes: {}
tasks: []
`), jobspec.Options{})
	var e *jobspec.Error
	if errors.As(err, &e) {
		fmt.Println(e)          // Fluxion's message
		fmt.Println(e.Detail()) // with its location
		fmt.Println(e.Path, e.At.Line, e.At.Column)
	}
	// Output:
	// "min" must be greater than zero
	// line 9, column 22 (resources[0].with[1].count.min): "min" must be greater than zero
	// resources[0].with[1].count.min 9 22
}

// Build a jobspec in Go instead of writing YAML: two whole nodes, each
// with a slot of 4 cores and a gpu, for an hour.
func ExampleNew() {
	js := jobspec.New(time.Hour,
		jobspec.Res("node", 2,
			jobspec.Slot("task", 1, jobspec.Res("core", 4), jobspec.Res("gpu", 1)),
		).Exclusively(),
	)
	fmt.Println(jobspec.Validate(js))
	y, _ := js.YAML() // for reapi/fluxcli, resource-query or Flux
	fmt.Print(string(y))

	// Mistakes are reported with their place in the tree.
	bad := jobspec.New(time.Hour, jobspec.Res("node", 2, jobspec.Res("core", 0)))
	var e *jobspec.Error
	if errors.As(jobspec.Validate(bad), &e) {
		fmt.Println(e.Detail())
	}
	// Output:
	// <nil>
	// version: 1
	// resources:
	//   - type: node
	//     count: 2
	//     exclusive: true
	//     with:
	//       - type: slot
	//         count: 1
	//         label: task
	//         with:
	//           - type: core
	//             count: 4
	//           - type: gpu
	//             count: 1
	// attributes:
	//   system:
	//     duration: 3600
	// tasks:
	//   - command: [app]
	//     slot: task
	//     count:
	//       per_slot: 1
	// resources[0].with[0].count.min: "min" must be greater than zero
}

func ExampleJobspec_Shape() {
	js := jobspec.New(time.Hour,
		jobspec.Res("node", 2,
			jobspec.Slot("task", 1,
				jobspec.Res("socket", 1, jobspec.Res("core", 4), jobspec.Res("gpu", 1)))))
	fmt.Println(js.Shape())
	fmt.Println(jobspec.New(0, jobspec.Res("node", 1, jobspec.Res("core", 2).Between(2, 4)).Exclusively()).Shape())
	// Output:
	// node[2]->slot[1]->socket[1]->{core[4],gpu[1]}
	// node[1]!->core[2-4]
}
