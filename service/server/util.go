package server

import (
	"github.com/gofluxion/gofluxion/graph"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

type graphT = graph.Graph

func insecureCreds() credentials.TransportCredentials { return insecure.NewCredentials() }

type trailer struct{ md metadata.MD }

func (t *trailer) opt() grpc.CallOption { return grpc.Trailer(&t.md) }

func (t *trailer) leader() string {
	if v := t.md.Get(LeaderTrailer); len(v) > 0 {
		return v[0]
	}
	return ""
}
