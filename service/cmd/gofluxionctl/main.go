// Command gofluxionctl talks to a gofluxion matcher service:
//
//	gofluxionctl -s ADDR[,ADDR...] cluster
//	gofluxionctl -s ADDRS match JOBSPEC-FILE AT [allocate|allocate_orelse_reserve|...]
//	gofluxionctl -s ADDRS cancel JOBID
//	gofluxionctl -s ADDRS jobs
//	gofluxionctl -s ADDRS find CRITERIA [FORMAT]
//	gofluxionctl -s ADDRS leave REPLICA-ID
//
// -stale lets a follower answer queries.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/service/client"
	"google.golang.org/protobuf/encoding/protojson"
)

func main() {
	addrs := flag.String("s", "127.0.0.1:7070", "service addresses, comma separated")
	stale := flag.Bool("stale", false, "let a follower answer queries")
	flag.Parse()
	if err := run(strings.Split(*addrs, ","), *stale, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gofluxionctl:", err)
		os.Exit(1)
	}
}

func run(addrs []string, stale bool, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no command (cluster, match, cancel, jobs, find, leave)")
	}
	c, err := client.Dial(addrs, client.Options{StaleReads: stale})
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	need := func(n int) error {
		if len(args) < n+1 {
			return fmt.Errorf("%s needs %d argument(s)", args[0], n)
		}
		return nil
	}
	switch args[0] {
	case "cluster":
		i, err := c.Cluster(ctx)
		if err != nil {
			return err
		}
		fmt.Println(protojson.Format(i))
	case "match":
		if err := need(2); err != nil {
			return err
		}
		data, err := os.ReadFile(args[1])
		if err != nil {
			return err
		}
		at, err := strconv.ParseInt(args[2], 10, 64)
		if err != nil {
			return err
		}
		op := gofluxion.AllocateOrElseReserve
		if len(args) > 3 {
			o, ok := match.ParseOp(args[3])
			if !ok {
				return fmt.Errorf("unknown match op %q", args[3])
			}
			op = o
		}
		js, err := c.ParseJobspec(data)
		if err != nil {
			return err
		}
		a, err := c.Match(op, js, at)
		if err != nil {
			return err
		}
		fmt.Printf("job %d [%d, %d) reserved=%v\n%s", a.JobID, a.Start, a.End, a.Reserved, a.String())
	case "cancel":
		if err := need(1); err != nil {
			return err
		}
		id, err := strconv.ParseUint(args[1], 10, 64)
		if err != nil {
			return err
		}
		return c.Cancel(id)
	case "jobs":
		jobs, err := c.JobTable()
		if err != nil {
			return err
		}
		for _, j := range jobs {
			fmt.Printf("%d\t%s\t%d\t%d\n", j.ID, j.State, j.Start, j.End)
		}
	case "find":
		if err := need(1); err != nil {
			return err
		}
		format := "simple"
		if len(args) > 2 {
			format = args[2]
		}
		out, err := c.FindAt(args[1], format, 0)
		if err != nil {
			return err
		}
		fmt.Print(out)
	case "leave":
		if err := need(1); err != nil {
			return err
		}
		i, err := c.Leave(ctx, args[1])
		if err != nil {
			return err
		}
		fmt.Println(protojson.Format(i))
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	return nil
}
