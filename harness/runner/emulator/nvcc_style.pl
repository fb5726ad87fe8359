#!/usr/bin/perl
# cudalab CPU backend: runs g++ on a rewritten lab file and shows its errors the way nvcc shows
# them on a GPU machine, so that a student reads the same kind of message on both backends.
#
#   perl harness/runner/emulator/nvcc_style.pl SOURCE.cu g++ ARGS...
#
# The exit status is g++'s. What changes in the messages, and why:
#   labs/x.cu:93:3: error: ...      ->  labs/x.cu(93): error: ...     nvcc's form, with the line
#                                                                      and a caret under the column
#   'atomicAd' was not declared in this scope; did you mean 'atomicAnd'?
#                                   ->  identifier "atomicAd" is undefined
#       (g++'s guesses come from the emulator's own names: a typo of atomicAdd is not a call
#       for atomicAnd, and nvcc does not guess)
#   an error inside the emulator's headers (harness/runner/emulator/include) is placed at the line of the
#   lab file that led there ("required from here"), or said to come from the lab file's use of
#   the CUDA API when there is none;
#   notes, "In function ..." and include chains are left out; after five errors the rest are
#   counted, not shown. CUDALAB_GXX_RAW=1 (make V=1) shows g++'s own words instead.
use strict;
use warnings;

my ($source, @cmd) = @ARGV;
die "usage: nvcc_style.pl SOURCE.cu COMPILER ARGS...\n" unless defined $source && @cmd;
my $kShown = 5;  # errors shown in full; a first error is what to fix, the rest often follow it

my $raw = ($ENV{CUDALAB_GXX_RAW} // '') ne '';
push @cmd, '-fdiagnostics-color=never', '-fno-diagnostics-show-caret' unless $raw;

# g++'s messages (stdout and stderr together, in order).
my $pid = open(my $from_gxx, '-|') // die "nvcc_style.pl: cannot start $cmd[0]: $!\n";
if ($pid == 0) {
    $ENV{LC_ALL} = 'C' unless $raw;  # plain quotes and English words, which the patterns below read
    open(STDERR, '>&', \*STDOUT) or die;
    exec(@cmd) or die "nvcc_style.pl: cannot run $cmd[0]: $!\n";
}
my @lines = <$from_gxx>;
close $from_gxx;
my $status = $? >> 8 || ($? ? 1 : 0);
if ($raw) { print STDERR @lines; exit $status; }

# The generated file (build/cpu/.../gen/labs/x.cpp) stands for the lab file it came from.
sub shown_path {
    my $p = shift;
    return $source if $p =~ m{(?:^|/)gen/(.*)\.cpp$} && "$1.cu" =~ m{\Q$source\E$};
    return $p;
}
sub is_student_file { my $p = shift; return shown_path($p) eq $source; }
sub is_emulator_file { my $p = shift; return $p =~ m{harness/runner/emulator/include/}; }

# nvcc's words for g++'s commonest ones; everything else keeps g++'s words, in straight quotes.
sub nvcc_words {
    my $m = shift;
    $m =~ s/; did you mean '[^']*'\?//;
    $m =~ s/'([^']*)'/"$1"/g;
    return qq(identifier $1 is undefined) if $m =~ /^("[^"]+") was not declared in this scope$/;
    return qq(identifier $1 is undefined) if $m =~ /^("[^"]+") has not been declared$/;
    return qq(expected a $1) if $m =~ /^expected ("[^"]+") before /;
    $m =~ s/ \[-fpermissive\]$//;
    return qq(no instance of overloaded function "$1" matches the argument list\n            argument types are: ($2))
        =~ s/&//gr if $m =~ /^no matching function for call to "([\w:]+)\((.*)\)"$/;
    return 'too few arguments in function call' if $m =~ /^too few arguments to function/;
    return 'too many arguments in function call' if $m =~ /^too many arguments to function/;
    return qq(cannot open source file "$1") if $m =~ /^([^:]+): No such file or directory$/;
    return $m;
}

# The line of the lab file, and a caret under the column, as nvcc prints them.
my %file_lines;
sub source_excerpt {
    my ($path, $line, $col) = @_;
    unless (exists $file_lines{$path}) {
        $file_lines{$path} = [];
        if (open(my $fh, '<', $path)) { $file_lines{$path} = [<$fh>]; close $fh; }
    }
    my $text = $file_lines{$path}[$line - 1] // return '';
    chomp $text;
    $text =~ s/\t/ /g;
    # A launch line was rewritten into a longer one (rewrite.pl): columns past its <<< point
    # into that text, so the caret goes to the argument list after >>>.
    my $launch = index($text, '<<<');
    $col = index($text, '>>>') + 4 if $col && $launch >= 0 && $col > $launch && index($text, '>>>') > $launch;
    $col = 0 if $col && $col > length($text) + 1;
    my $caret = $col && $col > 0 ? (' ' x ($col - 1)) . '^' : '';
    return "  $text\n  $caret\n";  # nvcc's indent: two spaces
}

my (@shown, $errors, $warnings);
$errors = $warnings = 0;
my $context;  # the last place in the lab file that g++'s context lines named ("required from here")
my @other;    # lines in no form known here (the linker's, a crashed compiler's): kept as they are
for my $l (@lines) {
    chomp(my $line = $l);
    if ($line =~ /^(.+?):(\d+):(?:(\d+):)?\s+(?:(?:recursively )?required (?:from|by)|in .*expansion of|In instantiation)/) {
        $context = [$1, $2, $3] if is_student_file($1);
        next;
    }
    if ($line =~ /^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning): (.*)$/) {
        my ($path, $ln, $col, $kind, $msg) = ($1, $2, $3, $4, $5);
        next if $kind eq 'warning' && !is_student_file($path) && !$context;  # the harness's own
        if (!is_student_file($path) && is_emulator_file($path)) {
            ($path, $ln, $col) = $context ? @$context : ($source, 0, 0);
            $msg .= ' (in the CPU backend\'s CUDA API, called from here)' if $ln;
        }
        $path = shown_path($path);
        $kind = 'catastrophic error' if $kind eq 'fatal error';
        $kind eq 'warning' ? ++$warnings : ++$errors;
        $context = undef;
        next if $kind ne 'warning' && $errors > $kShown;
        my $where = $ln ? "$path($ln)" : $path;
        push @shown, "$where: $kind: " . nvcc_words($msg) . "\n" . ($ln ? source_excerpt($path, $ln, $col) : '') . "\n";
        next;
    }
    next if $line =~ /: (?:note|In function|In member function|In lambda|At global scope|In instantiation)/;
    next if $line =~ /^(?:In file included from|\s+from |compilation terminated\.)/;
    next if $line =~ /^\s*$/ || $line =~ /^\S+:\d+:(?:\d+:)?\s/;  # any other located line is context
    push @other, "$line\n";
}

# On stderr, where compilers write.
print STDERR @shown, @other;
if ($errors > $kShown) {
    my $more = $errors - $kShown;
    print STDERR "(and $more more error" . ($more == 1 ? '' : 's') . ": fix the first ones, the rest often follow from them)\n\n";
}
if ($errors) {
    print STDERR "$errors error" . ($errors == 1 ? '' : 's') . " detected in the compilation of \"$source\".\n";
    $status ||= 1;
}
exit $status;
