# The instructor's class report (grading/class_report/class_report.py: grades/labN/report.html).
#
#   make test-class-report   a synthetic graded class written to build/class_report/, its report
#                            rendered by headless Chromium and checked from the DOM;
#                            build/class_report/report.png is the screenshot
#
# (test-report and report-deps are the old names of test-class-report and class-report-deps.)
# Needs Chromium (Debian: chromium) and copydetect (PyPI), which tools/setup/deps.sh installs or names.
# The Makefile picks up every mk/*.mk, this one included.

.PHONY: test-class-report class-report-deps test-report report-deps

# make grade writes the report at its end: copydetect first, where it can be installed. Without
# it the grading goes on, and the report says its similarity section could not be computed.
grade grade-slurm: | class-report-deps
class-report-deps:
	@tools/setup/deps.sh copydetect || echo "cudalab: the class report will leave out its similarity section (no copydetect)"

test-class-report:
	@tools/setup/deps.sh chromium copydetect
	@echo "== the class report (grading/class_report/class_report.py), rendered by headless Chromium"
	@python3 tests/class_report/class_report_test.py

test-report: test-class-report
report-deps: class-report-deps

TEST_TARGETS += test-class-report
