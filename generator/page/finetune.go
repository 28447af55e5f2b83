package page

import (
	"strings"

	"dossier/generator/render"
)

// finetuneTable is the page's LoRA preflight: the targets, the modules
// they resolve to by layer kind, the adapter size and the training
// memory, from the lora.* facts (none: no rows, no section).
func (m *Model) finetuneTable() *render.Table {
	if m.Facts.Get("lora.modules_matched") == nil {
		return factTable(nil)
	}
	keys := [][2]string{
		{"target_modules", "lora.targets"},
		{"rank r", "lora.rank"},
		{"Linear modules matched", "lora.modules_matched"},
	}
	for k, rest := range m.Facts.Prefixed("lora.modules_matched.") {
		keys = append(keys, [2]string{"… in " + strings.ReplaceAll(rest, "_", " "), k})
	}
	keys = append(keys,
		[2]string{"targets that match nothing", "lora.targets_unmatched"},
		[2]string{"routed experts out of reach (stored fused)", "lora.fused_expert_params"},
		[2]string{"adapter parameters", "lora.adapter_params"},
		[2]string{"adapter bytes", "lora.adapter_bytes"},
		[2]string{"training memory stated at", "lora.memory.setup"},
		[2]string{"adapter weights", "lora.memory.adapter_weights_bytes"},
		[2]string{"adapter gradients", "lora.memory.gradients_bytes"},
		[2]string{"optimizer state", "lora.memory.optimizer_bytes"},
		[2]string{"activations", "lora.memory.activations_bytes"},
		[2]string{"activations, gradient checkpointing", "lora.memory.activations_checkpointed_bytes"},
		[2]string{"LoRA in total (base as stored)", "lora.memory.lora_bytes"},
		[2]string{"LoRA in total, checkpointing", "lora.memory.lora_checkpointed_bytes"},
		[2]string{"QLoRA in total (base at NF4)", "lora.memory.qlora_bytes"},
		[2]string{"QLoRA in total, checkpointing", "lora.memory.qlora_checkpointed_bytes"},
	)
	return factTable(m.rows(keys...))
}

// auditTable lists the findings of the page's snippet audit, each with
// its source (audit.finding.NN facts, in line order).
func (m *Model) auditTable() *render.Table {
	t := &render.Table{Header: []string{"finding", "source", "fact"}, Align: []render.Align{render.Left, render.Left, render.Left}}
	for k := range m.Facts.Prefixed("audit.finding.") {
		f := m.Facts.Get(k)
		t.Rows = append(t.Rows, []string{f.Display, m.sourcesCell(f.Sources), render.Code(k)})
	}
	return t
}
