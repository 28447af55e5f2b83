// Package localrun plans how llama.cpp runs a model's published quants on
// machines a person owns: which quant fits where (in VRAM, with experts
// offloaded to RAM, only by mapping the file from disk, or not at all),
// the flags that place it, the longest context, the speed that memory
// bandwidth allows, and the command to type.
package localrun

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"dossier/generator/catalog"
	"dossier/generator/yamlx"
)

// maxHostMemoryBytes bounds a host's RAM (10^15 B): beyond any machine
// a person owns, short of overflowing the sums it feeds.
const maxHostMemoryBytes = 1e15

// LocalFile is the data file the hosts are read from.
const LocalFile = "local.yaml"

// Host is a machine without its GPUs: RAM, RAM bandwidth, the PCIe link a
// GPU gets; for a Mac, unified memory and the share the GPU may wire.
type Host struct {
	ID            string        `yaml:"id"`
	Name          string        `yaml:"name"`
	Kind          string        `yaml:"kind"` // desktop, workstation, server, mac
	MemoryBytes   int64         `yaml:"memory_bytes"`
	Bandwidth     catalog.Spec  `yaml:"memory_bandwidth"`
	PCIe          *catalog.Spec `yaml:"pcie_bytes_per_second"`
	PCIeKind      string        `yaml:"pcie_kind"`
	MaxGPUs       int           `yaml:"max_gpus"`
	GPUWiredShare float64       `yaml:"gpu_wired_share"`
	GPUWiredNote  string        `yaml:"gpu_wired_note"`
	// Accelerator names the hardware.yaml entry a Mac host is, which
	// then holds its memory, bandwidth and wired share.
	Accelerator string `yaml:"accelerator"`
	Source      string `yaml:"source"`
	AsOf        string `yaml:"as_of"`
}

// Mac reports a unified-memory host.
func (h *Host) Mac() bool { return h.Kind == "mac" }

var kinds = []string{"desktop", "workstation", "server", "mac"}

type localFile struct {
	Hosts []*Host `yaml:"hosts"`
}

// Hosts are the host classes by id, in file order.
type Hosts struct {
	ByID  map[string]*Host
	Order []string
}

// LoadHosts reads local.yaml from fsys (label names it in errors) and
// fills Mac hosts from the accelerators they name in cat.
func LoadHosts(fsys fs.FS, label string, cat *catalog.Catalog) (*Hosts, error) {
	path := filepath.Join(label, LocalFile)
	b, err := fs.ReadFile(fsys, LocalFile)
	if err != nil {
		return nil, fmt.Errorf("read local machines %s: %w", path, err)
	}
	var f localFile
	if err := yamlx.Decode(path, b, &f); err != nil {
		return nil, err
	}
	hs := &Hosts{ByID: map[string]*Host{}}
	for i, h := range f.Hosts {
		field := func(name string) string { return fmt.Sprintf("%s: field hosts[%d].%s", path, i, name) }
		if err := fillHost(h, cat, field); err != nil {
			return nil, err
		}
		if hs.ByID[h.ID] != nil {
			return nil, fmt.Errorf("%s: duplicate id %q", field("id"), h.ID)
		}
		hs.ByID[h.ID] = h
		hs.Order = append(hs.Order, h.ID)
	}
	return hs, nil
}

var idRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)

func fillHost(h *Host, cat *catalog.Catalog, field func(string) string) error {
	if !idRe.MatchString(h.ID) {
		return fmt.Errorf("%s: expected letters and digits, found %q", field("id"), h.ID)
	}
	if !slices.Contains(kinds, h.Kind) {
		return fmt.Errorf("%s: expected one of %v, found %q", field("kind"), kinds, h.Kind)
	}
	if h.Accelerator != "" {
		a := cat.Accelerators[h.Accelerator]
		if a == nil || a.Class != "unified" || !h.Mac() {
			return fmt.Errorf("%s: %q is not a unified-memory accelerator in hardware.yaml (only a mac host names one)", field("accelerator"), h.Accelerator)
		}
		h.MemoryBytes, h.Bandwidth = a.MemoryBytes, a.Bandwidth
		h.GPUWiredShare, h.GPUWiredNote = a.GPUWiredShare, a.GPUWiredNote
		h.Source, h.AsOf = a.Source, a.AsOf
	}
	switch {
	case h.MemoryBytes <= 0 || h.MemoryBytes > maxHostMemoryBytes:
		return fmt.Errorf("%s: expected a byte count in (0, 10^15], found %d", field("memory_bytes"), h.MemoryBytes)
	case !(h.Bandwidth.Value > 0 && h.Bandwidth.Value < 1e15) || h.Bandwidth.Source == "":
		return fmt.Errorf("%s: expected a positive bytes/s figure with its source", field("memory_bandwidth"))
	case h.Mac() && !(h.GPUWiredShare > 0 && h.GPUWiredShare <= 1):
		return fmt.Errorf("%s: a mac host needs the GPU's default share in (0, 1]", field("gpu_wired_share"))
	case !h.Mac() && (h.PCIe == nil || !(h.PCIe.Value > 0) || h.PCIe.Source == ""):
		return fmt.Errorf("%s: expected a positive bytes/s figure with its source", field("pcie_bytes_per_second"))
	case !h.Mac() && (h.MaxGPUs < 0 || h.MaxGPUs > 8):
		return fmt.Errorf("%s: expected 0 to 8, found %d", field("max_gpus"), h.MaxGPUs)
	case h.Source == "":
		return fmt.Errorf("%s: missing", field("source"))
	}
	return nil
}

// Machine is a host with 0 or more identical GPUs.
type Machine struct {
	ID   string // as written: 1xRTX4090@Desktop128, or the host id
	Host *Host
	GPU  *catalog.Accelerator // nil without GPUs
	GPUs int
}

// machineRe is the grammar: [N x GPU @] HOST.
var machineRe = regexp.MustCompile(`^(?:([1-9][0-9]*)x([A-Za-z0-9-]+)@)?([A-Za-z][A-Za-z0-9]*)$`)

// ParseMachine reads NxGPU@HOST (or HOST alone): N of 1 to the host's
// max_gpus, GPU an accelerator of class consumer or workstation in
// hardware.yaml, HOST an id in local.yaml.
func ParseMachine(s string, hosts *Hosts, cat *catalog.Catalog) (Machine, error) {
	m := machineRe.FindStringSubmatch(s)
	if m == nil {
		return Machine{}, fmt.Errorf("machine %q: expected HOST or NxGPU@HOST, e.g. 1xRTX4090@Desktop128", s)
	}
	h := hosts.ByID[m[3]]
	if h == nil {
		return Machine{}, fmt.Errorf("machine %q: no host %q in %s (hosts: %v)", s, m[3], LocalFile, hosts.Order)
	}
	mc := Machine{ID: s, Host: h}
	if m[1] == "" {
		return mc, nil
	}
	if h.Mac() {
		return Machine{}, fmt.Errorf("machine %q: a Mac takes no discrete GPUs", s)
	}
	n, _ := strconv.Atoi(m[1])
	if n > h.MaxGPUs {
		return Machine{}, fmt.Errorf("machine %q: %s holds at most %d GPUs", s, h.ID, h.MaxGPUs)
	}
	g := cat.Accelerators[m[2]]
	if g == nil || (g.Class != "consumer" && g.Class != "workstation") {
		return Machine{}, fmt.Errorf("machine %q: %q is not a consumer or workstation GPU in hardware.yaml", s, m[2])
	}
	mc.GPU, mc.GPUs = g, n
	return mc, nil
}
