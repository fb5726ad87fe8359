# The mutation audit (docs/mutation_audit.md, tools/mutants/): wrong versions of a lab's reference
# solution, made by the rules student mistakes follow, each judged by the lab's checks on the CPU
# backend (the build and checker make labN uses).
#
#   make mutants LAB=3      one lab's kill table (every lab without LAB); fails under 95% killed
#   make test-mutants       make test's fixed sample (tools/mutants/ci_sample.txt)
.PHONY: mutants test-mutants
MUTANT_LABS := $(or $(LAB),$(LABS))
mutants: $(foreach l,$(MUTANT_LABS),$(CPU_OUT)/check/lab$(l) $(CPU_OUT)/solutions/lab$(l)-runner)
	@s=0; for l in $(MUTANT_LABS); do python3 tools/mutants/audit.py $$l || s=1; done; exit $$s

TEST_TARGETS += test-mutants
# The sample's runners are built one at a time: make test's other parts hold the other core.
MUTANT_SAMPLE_LABS := $(sort $(shell sed -n 's/^lab\([0-9]*\) .*/\1/p' tools/mutants/ci_sample.txt 2>/dev/null))
test-mutants: $(foreach l,$(MUTANT_SAMPLE_LABS),$(CPU_OUT)/check/lab$(l) $(CPU_OUT)/solutions/lab$(l)-runner)
	@echo "== a sample of the mutation audit: each sampled wrong solution killed by its check"
	@python3 tools/mutants/ci_sample.py
