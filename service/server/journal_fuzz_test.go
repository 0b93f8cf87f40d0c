package server

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/protobuf/proto"
)

func fuzzJournal(n int) []byte {
	b := journalHeader(7)
	for i := range n {
		data, _ := proto.Marshal(&pb.Op{Client: "c", Seq: uint64(i + 1), Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: uint64(i)}}})
		b = appendRecord(b, uint64(8+i), data)
	}
	return b
}

// FuzzScanJournal: whatever the bytes, the journal scan does not panic;
// it either refuses them with a *JournalError or finds good records up to
// an end within the file, and the file cut there scans clean (what a
// start that cuts a torn tail leaves is a good journal).
func FuzzScanJournal(f *testing.F) {
	good := fuzzJournal(5)
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add(append(bytes.Clone(good), 0, 0, 0, 0, 0, 0, 0, 0, 0))
	flipped := bytes.Clone(good)
	flipped[40] ^= 1
	f.Add(flipped)
	f.Add([]byte{})
	f.Add([]byte("GFXJ"))
	f.Fuzz(func(t *testing.T, data []byte) {
		size := int64(len(data))
		js, err := scanJournal("journal", bytes.NewReader(data), size, func(scanned) error { return nil })
		if err != nil {
			var je *JournalError
			if !errors.As(err, &je) {
				t.Fatalf("not a *JournalError: %v", err)
			}
			if je.Offset < 0 || je.Offset > size {
				t.Fatalf("offset %d outside %d bytes", je.Offset, size)
			}
			return
		}
		if js.end < 0 || js.end > size {
			t.Fatalf("end %d outside %d bytes", js.end, size)
		}
		again, err := scanJournal("journal", bytes.NewReader(data[:js.end]), js.end, func(scanned) error { return nil })
		if err != nil || again.torn != nil || again.records != js.records {
			t.Fatalf("the journal cut at %d does not scan clean: %v %v", js.end, err, again)
		}
	})
}

// TestScanJournalSeeds: the fuzz seeds' verdicts.
func TestScanJournalSeeds(t *testing.T) {
	good := fuzzJournal(5)
	scan := func(b []byte) (*journalScan, error) {
		return scanJournal("journal", bytes.NewReader(b), int64(len(b)), func(scanned) error { return nil })
	}
	if js, err := scan(good); err != nil || js.torn != nil || js.records != 5 || js.base != 7 || js.first != 8 || js.last != 12 {
		t.Fatalf("good journal: %+v %v", js, err)
	}
	if js, err := scan(good[:len(good)-3]); err != nil || js.torn == nil || js.records != 4 {
		t.Fatalf("torn tail: %+v %v", js, err)
	}
	flipped := bytes.Clone(good)
	flipped[40] ^= 1
	var je *JournalError
	if _, err := scan(flipped); !errors.As(err, &je) || je.Record != 1 || je.Offset != headerSize || je.Index != 8 {
		t.Fatalf("flipped first record: %v", err)
	}
}
