package catalog

import (
	"fmt"

	"dossier/generator/internal/checked"
)

// Host is how an accelerator is installed: how many sit in one host, how
// many one scale-up domain (NVLink, xGMI) joins, and the scale-out fabric
// between hosts. The deployment plans read it: tensor parallelism stays
// inside a scale-up domain (inside a host over PCIe when there is none),
// and layouts beyond one domain need a fabric.
type Host struct {
	// GPUs is the accelerators one host (server, workstation, desktop,
	// compute tray) holds.
	GPUs int `yaml:"gpus"`
	// ScaleUp is the GPUs one NVLink/xGMI domain joins; 0 when the cards
	// talk over PCIe only.
	ScaleUp int `yaml:"scale_up"`
	// Fabric is the scale-out network between hosts ("InfiniBand/RoCE
	// 400 Gb/s per GPU"), or "none" when the part is not sold with one.
	Fabric string `yaml:"fabric"`
	Source string `yaml:"source"`
	AsOf   string `yaml:"as_of"`
	Note   string `yaml:"note,omitempty"`
}

// HasFabric reports whether hosts of this part are joined by a scale-out
// network the engines use for pipeline, data and expert parallelism.
func (h *Host) HasFabric() bool { return h != nil && h.Fabric != "" && h.Fabric != "none" }

// Domain is the GPUs tensor parallelism may span: the scale-up domain, or
// one host when the cards have none.
func (h *Host) Domain() int {
	if h.ScaleUp > 0 {
		return h.ScaleUp
	}
	return h.GPUs
}

func validHost(h *Host, field func(string) string) error {
	if h == nil {
		return nil
	}
	switch {
	case h.GPUs <= 0 || h.GPUs > checked.MaxGPUs:
		return fmt.Errorf("field %s: expected a count in 1..%d, found %d", field("host.gpus"), checked.MaxGPUs, h.GPUs)
	case h.ScaleUp < 0 || h.ScaleUp > checked.MaxGPUs:
		return fmt.Errorf("field %s: expected a count in 0..%d, found %d", field("host.scale_up"), checked.MaxGPUs, h.ScaleUp)
	case h.Fabric == "":
		return fmt.Errorf("field %s: missing (the scale-out network, or \"none\")", field("host.fabric"))
	case h.Source == "":
		return fmt.Errorf("field %s: missing", field("host.source"))
	case !dateRe.MatchString(h.AsOf):
		return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field("host.as_of"), h.AsOf)
	}
	return nil
}
