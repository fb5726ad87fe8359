# The instructor's class report (grading/report/class_report.py: grades/labN/report.html).
#
#   make test-report     a synthetic graded class written to build/report/, its report rendered
#                        by headless Chromium and checked from the DOM; build/report/report.png
#                        is the screenshot
#
# Needs Chromium (Debian: chromium) and copydetect (PyPI), which tools/setup/deps.sh installs or names.
# The Makefile picks up every mk/*.mk, this one included.

.PHONY: test-report report-deps

# make grade writes the report at its end: copydetect first, where it can be installed. Without
# it the grading goes on, and the report says its similarity section could not be computed.
grade grade-slurm: | report-deps
report-deps:
	@tools/setup/deps.sh copydetect || echo "cudalab: the class report will leave out its similarity section (no copydetect)"

test-report:
	@tools/setup/deps.sh chromium copydetect
	@echo "== the class report (grading/report/class_report.py), rendered by headless Chromium"
	@python3 tests/report/report_test.py

TEST_TARGETS += test-report
