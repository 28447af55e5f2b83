# The circulating "fine-tune kimi-k3" snippet that the course page
# "Kimi K3: Reading a Model You Cannot Run" (§4) audits. The page quotes its
# four failing fragments (the model id, SFTTrainer(tokenizer=...),
# SFTTrainer(max_seq_length=...), train_dataset="train.jsonl"); the lines
# around them are the usual SFT-with-LoRA scaffolding, reconstructed, with
# nothing else that a current library rejects.
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments
from peft import LoraConfig
from trl import SFTTrainer

model_id = "kimi/kimi-k3"

tokenizer = AutoTokenizer.from_pretrained(model_id, trust_remote_code=True)
model = AutoModelForCausalLM.from_pretrained(
    model_id,
    torch_dtype=torch.bfloat16,
    device_map="auto",
    trust_remote_code=True,
)

peft_config = LoraConfig(
    r=16,
    lora_alpha=32,
    lora_dropout=0.05,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
    task_type="CAUSAL_LM",
)

trainer = SFTTrainer(
    model=model,
    tokenizer=tokenizer,
    train_dataset="train.jsonl",
    peft_config=peft_config,
    max_seq_length=2048,
    args=TrainingArguments(
        output_dir="kimi-k3-lora",
        per_device_train_batch_size=1,
        gradient_accumulation_steps=8,
        learning_rate=2e-4,
        num_train_epochs=1,
        bf16=True,
    ),
)
trainer.train()
