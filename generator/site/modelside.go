package site

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/internal/binenc"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

// ModelSidePath is where a build keeps what it keeps of a page for the
// next price change (keptSide: the model side of its sizing and what the
// page reads of its snapshot and config), so that the next build, when
// only data/pricing changed, prices it instead of deriving it again.
func ModelSidePath(slug string) string { return ".dossier/model-side/" + slug + ".bin" }

// previousModelSide is the model side the previous output kept for e, when
// it was derived from the same inputs but the price lists and is intact;
// else nil.
func (s *Site) previousModelSide(e *entry) []byte {
	if s.prev == nil || e.modelSide == "" {
		return nil
	}
	pe, ok := s.prev.Models[e.slug]
	if !ok || pe.ModelSide != e.modelSide {
		return nil
	}
	name := ModelSidePath(e.slug)
	sum, ok := pe.Files[name]
	if !ok || !s.intact(name, sum) {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(s.prevDir, filepath.FromSlash(name)))
	if err != nil {
		return nil // derived again: a lost cache only costs time
	}
	return b
}

// keptSide is what a build keeps of a page for the next price change: the
// model side of its sizing and what the page reads of the snapshot and
// config beside it (pageHead), so that a page priced anew reads neither.
type keptSide struct {
	head pageHead
	side *sizing.ModelSide
}

// pageHead is what a page reads of its snapshot and config once it is
// sized: the snapshot's identity and sources (provenance, facts.json,
// summary), what the checks read of the quantization (claims.NewContext),
// and the key of its module-tree figures in the cache.
type pageHead struct {
	Model, Revision, RevisionNote, Fetched, Source string
	CensusSource, ShardsSource, ConfigSource       string
	IndexSource, HeaderSource                      *string // nil: the snapshot has none
	QuantBits                                      int64
	QuantIgnore                                    []string
	Analytic                                       string
}

func headOf(snap *snapshot.Snapshot, a *arch.Architecture, analytic string) pageHead {
	h := pageHead{Model: snap.Model, Revision: snap.Revision, RevisionNote: snap.RevisionNote, Fetched: snap.Fetched,
		Source: snap.Source, CensusSource: snap.CensusSource, ShardsSource: snap.Shards.Source, ConfigSource: snap.ConfigSource,
		QuantBits: a.Quant.Bits, QuantIgnore: a.Quant.Ignore, Analytic: analytic}
	if snap.Index != nil {
		h.IndexSource = &snap.Index.Source
	}
	if snap.Header != nil {
		h.HeaderSource = &snap.Header.Source
	}
	return h
}

// snapshot is the snapshot as far as the page reads it.
func (h pageHead) snapshot() *snapshot.Snapshot {
	snap := &snapshot.Snapshot{Model: h.Model, Revision: h.Revision, RevisionNote: h.RevisionNote, Fetched: h.Fetched,
		Source: h.Source, CensusSource: h.CensusSource, Shards: snapshot.Shards{Source: h.ShardsSource}, ConfigSource: h.ConfigSource}
	if h.IndexSource != nil {
		snap.Index = &snapshot.Index{Source: *h.IndexSource}
	}
	if h.HeaderSource != nil {
		snap.Header = &snapshot.Header{Source: *h.HeaderSource}
	}
	return snap
}

// arch is the architecture as far as the checks read it.
func (h pageHead) arch() *arch.Architecture {
	return &arch.Architecture{Quant: arch.Quantization{Bits: h.QuantBits, Ignore: h.QuantIgnore}}
}

const keptSideHeader = "dossier kept side 1\n"

// append appends k in the encoding decodeKeptSide reads: the head, then
// the model side's own encoding, then a checksum.
func (k keptSide) append(dst []byte) ([]byte, error) {
	side, err := k.side.AppendBinary(nil)
	if err != nil {
		return nil, err
	}
	start := len(dst)
	dst = append(dst, keptSideHeader...)
	h := k.head
	for _, v := range []string{h.Model, h.Revision, h.RevisionNote, h.Fetched, h.Source, h.CensusSource, h.ShardsSource, h.ConfigSource, h.Analytic} {
		dst = binenc.AppendString(dst, v)
	}
	for _, v := range []*string{h.IndexSource, h.HeaderSource} {
		if v == nil {
			dst = append(dst, 0)
		} else {
			dst = binenc.AppendString(append(dst, 1), *v)
		}
	}
	dst = binary.AppendVarint(dst, h.QuantBits)
	dst = binary.AppendUvarint(dst, uint64(len(h.QuantIgnore)))
	for _, v := range h.QuantIgnore {
		dst = binenc.AppendString(dst, v)
	}
	dst = binary.AppendUvarint(dst, uint64(len(side))) // as binenc.AppendString
	dst = append(dst, side...)
	return binenc.Seal(dst, start), nil
}

// decodeKeptSide reads what keptSide.append wrote, all of b.
func decodeKeptSide(b []byte) (keptSide, error) {
	r, err := binenc.Open(b, keptSideHeader)
	if err != nil {
		return keptSide{}, err
	}
	var h pageHead
	for _, v := range []*string{&h.Model, &h.Revision, &h.RevisionNote, &h.Fetched, &h.Source, &h.CensusSource, &h.ShardsSource, &h.ConfigSource, &h.Analytic} {
		*v = r.String()
	}
	for _, v := range []**string{&h.IndexSource, &h.HeaderSource} {
		switch r.Byte() {
		case 0:
		case 1:
			s := r.String()
			*v = &s
		default:
			r.Fail("bad flag")
		}
	}
	h.QuantBits = r.Varint()
	if n := r.Count(); n > 0 {
		h.QuantIgnore = make([]string, n)
		for i := range h.QuantIgnore {
			h.QuantIgnore[i] = r.String()
		}
	}
	sideStart, sideEnd := r.Bytes()
	if r.Err() == nil && r.Rest() > 0 {
		r.Fail("bytes after the model side")
	}
	if err := r.Err(); err != nil {
		return keptSide{}, err
	}
	// The head's strings share the reader's copy of b; the entry keeps the
	// cache key for the whole build, and with it, the copy. Copy them out.
	for _, v := range []*string{&h.Model, &h.Revision, &h.RevisionNote, &h.Fetched, &h.Source, &h.CensusSource, &h.ShardsSource, &h.ConfigSource, &h.Analytic, h.IndexSource, h.HeaderSource} {
		if v != nil {
			*v = strings.Clone(*v)
		}
	}
	for i, v := range h.QuantIgnore {
		h.QuantIgnore[i] = strings.Clone(v)
	}
	m, err := sizing.DecodeModelSide(b[sideStart:sideEnd])
	if err != nil {
		return keptSide{}, err
	}
	return keptSide{head: h, side: m}, nil
}
