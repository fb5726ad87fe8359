#!/usr/bin/perl
# cudalab CPU backend: turns a .cu file into C++ that g++ compiles against harness/runner/emulator/include.
#
#   perl harness/runner/emulator/rewrite.pl IN.cu OUT.cpp [NAME]
#
# Only two things are not C++ and are rewritten here:
#   kernel<<<grid, block, smem, stream>>>(args)
#       -> ::cudalab_cpu::launch(__FILE__, __LINE__, "kernel", [&](auto&&... a) { kernel(a...); },
#                                grid, block, smem, stream)(args)
#      (a lambda, so that templates whose arguments are deduced from (args) still work)
#   extern __shared__ T name[];
#       -> T* const name = ::cudalab_cpu::dynamic_smem<T>();      (inside a function)
#       -> static ::cudalab_cpu::DynamicShared<T> name;           (at namespace scope)
# Everything else (__global__, __shared__, __syncthreads, ...) is handled by the shim headers.
# Line breaks are kept where they were and the output starts with a #line directive, so every
# compiler message and every emulator message names the student's file and line.
# Comments and string literals are never touched: the search runs on a copy of the source
# where they are blanked out, character for character.
use strict;
use warnings;

my ($in, $out, $name) = @ARGV;
die "usage: rewrite.pl IN.cu OUT.cpp [NAME-FOR-MESSAGES]\n" unless defined $in && defined $out;
$name //= $in;

open(my $fh, '<', $in) or die "rewrite.pl: cannot read $in: $!\n";
my $src = do { local $/; <$fh> };
close $fh;

# ---- A copy with comments and literal contents blanked (same length, same newlines) -------
sub blank { my $s = shift; $s =~ s/[^\n]/ /g; return $s; }

sub mask_source {
    my ($s, $keep_literals) = @_;
    my $m = '';
    my $i = 0;
    my $n = length $s;
    while ($i < $n) {
        my $c = substr($s, $i, 1);
        my $two = substr($s, $i, 2);
        if ($two eq '//') {
            my $j = index($s, "\n", $i);
            $j = $n if $j < 0;
            # a comment continued with a backslash runs on
            while ($j < $n && $j > 0 && substr($s, $j - 1, 1) eq '\\') {
                my $k = index($s, "\n", $j + 1);
                $j = $k < 0 ? $n : $k;
            }
            $m .= blank(substr($s, $i, $j - $i));
            $i = $j;
        } elsif ($two eq '/*') {
            my $j = index($s, '*/', $i + 2);
            $j = $j < 0 ? $n : $j + 2;
            $m .= blank(substr($s, $i, $j - $i));
            $i = $j;
        } elsif ($c eq 'R' && substr($s, $i + 1, 1) eq '"' && ($i == 0 || substr($s, $i - 1, 1) !~ /\w/)
                 && substr($s, $i + 2) =~ /^([^()\\\s]{0,16})\(/) {
            my $delim = $1;
            my $end = index($s, ")$delim\"", $i + 3 + length $delim);
            $end = $end < 0 ? $n : $end + length($delim) + 2;
            $m .= $keep_literals ? substr($s, $i, $end - $i) : 'R"' . blank(substr($s, $i + 2, $end - $i - 3)) . '"';
            $i = $end;
        } elsif ($c eq '"' || ($c eq "'" && !digit_separator($s, $i))) {
            my $j = $i + 1;
            while ($j < $n) {
                my $d = substr($s, $j, 1);
                if ($d eq '\\') { $j += 2; next; }
                last if $d eq $c || $d eq "\n";
                $j++;
            }
            $j = $n - 1 if $j >= $n;
            $m .= $keep_literals ? substr($s, $i, $j + 1 - $i) : $c . blank(substr($s, $i + 1, $j - $i - 1)) . substr($s, $j, 1);
            $i = $j + 1;
        } else {
            $m .= $c;
            $i++;
        }
    }
    return $m;
}

# 1'000'000: a quote inside a number is a digit separator, not a character literal.
sub digit_separator {
    my ($s, $i) = @_;
    my $j = $i;
    $j-- while $j > 0 && substr($s, $j - 1, 1) =~ /[\w.']/;
    return $j < $i && substr($s, $j, 1) =~ /\d/;
}

my $mask = mask_source($src, 0);
my $nocomment = mask_source($src, 1);   # comments blanked, literals kept

sub line_of { my $pos = shift; return 1 + (substr($mask, 0, $pos) =~ tr/\n//); }

# ---- Inline PTX cannot run on a CPU: say so at the student's line ------------------------
if ($mask =~ /\b(asm|__asm__|__asm)\b\s*(volatile\b|__volatile__\b)?\s*\(/g) {
    my $line = line_of($-[0]);
    print STDERR "$name:$line: error: inline PTX (asm) cannot run on the cudalab CPU backend. "
               . "Write it in CUDA C++ (intrinsics such as __shfl_sync or __popc), or run this lab on a GPU (BACKEND=cuda).\n";
    exit 1;
}

my @edits;  # [start, end, replacement], applied back to front

# ---- kernel<<<...>>>(...) ------------------------------------------------------------------
# nvcc accepts the chevrons split by spaces, line breaks or comments (Visual Studio's formatter
# writes `kernel << <grid, block >> >(args)`); comments are blanked in $mask, so \s covers them.
# `operator<< <T>` (explicit template arguments of an operator<<) is the one C++ spelling that
# also puts three '<' in a row.
while ($mask =~ /<\s*<\s*</g) {
    my $open = $-[0];
    my $after = $+[0];
    if (substr($mask, 0, $open) =~ /\boperator\s*$/ || substr($mask, 0, $open) =~ /\boperator\s*<\s*$/) {
        pos($mask) = $open + 2;
        next;
    }
    # The kernel expression: a (qualified) name, maybe with template arguments, before <<<.
    my $k = $open;
    $k-- while $k > 0 && substr($mask, $k - 1, 1) =~ /\s/;
    my $kend = $k;
    my $ok = 0;
    while ($k > 0) {
        my $c = substr($mask, $k - 1, 1);
        if ($c eq '>' || $c eq ')' || $c eq ']') {
            # Walk back to the matching opener; brackets of other kinds nest inside.
            my %opener = ('>' => '<', ')' => '(', ']' => '[');
            my @want;
            my $j = $k - 1;
            while ($j >= 0) {
                my $d = substr($mask, $j, 1);
                if (exists $opener{$d} && !($d eq '>' && @want && $want[-1] ne '<')) { push @want, $opener{$d}; }
                elsif (@want && $d eq $want[-1]) { pop @want; last unless @want; }
                $j--;
            }
            last if $j < 0;
            $k = $j;
            $k-- while $k > 0 && substr($mask, $k - 1, 1) =~ /\s/;
            next if $c ne '>';   # (*fp) or table[i]: the bracket is the whole expression's end
        }
        if ($k > 0 && substr($mask, $k - 1, 1) =~ /\w/) {
            $k-- while $k > 0 && substr($mask, $k - 1, 1) =~ /\w/;
            $ok = 1;
            my $j = $k;
            $j-- while $j > 0 && substr($mask, $j - 1, 1) =~ /\s/;
            if ($j >= 2 && substr($mask, $j - 2, 2) eq '::') {
                $k = $j - 2;
                $k-- while $k > 0 && substr($mask, $k - 1, 1) =~ /\s/;
                next;
            }
            last;
        }
        if ($k >= 2 && substr($mask, $k - 2, 2) eq '::') { $k -= 2; next; }
        last;
    }
    my $line = line_of($open);
    die "$name:$line: error: cannot find the kernel name before <<<\n" unless $ok;
    # The configuration: up to the >>> that closes it, outside any brackets.
    my $depth = 0;
    my $j = $after;
    my $close = -1;
    my $close_len = 3;
    while ($j < length $mask) {
        my $d = substr($mask, $j, 1);
        if ($d =~ /[([{]/) { $depth++; }
        elsif ($d =~ /[)\]}]/) { $depth--; }
        elsif ($depth == 0 && $d eq ">" && substr($mask, $j, 4096) =~ /^(>\s*>\s*>)/) { $close = $j; $close_len = length $1; last; }
        elsif ($d eq ';') { last; }
        $j++;
    }
    die "$name:$line: error: this <<< has no matching >>>\n" if $close < 0;
    my $p = $close + $close_len;
    $p++ while $p < length $mask && substr($mask, $p, 1) =~ /\s/;
    die "$name:$line: error: a kernel launch needs its arguments in parentheses after >>>\n"
        unless substr($mask, $p, 1) eq '(';
    my $cfg = substr($nocomment, $after, $close - $after);
    my $original = substr($src, $k, $close + $close_len - $k);
    my $newlines = ($original =~ tr/\n//);
    (my $flat_kernel = substr($mask, $k, $kend - $k)) =~ s/\s+/ /g;
    (my $flat_cfg = $cfg) =~ s/\\\n/ /g;
    $flat_cfg =~ s/\s+/ /g;
    (my $label = $flat_kernel) =~ s/(["\\])/\\$1/g;
    my $in_directive = directive_line($k);
    my $nl = $in_directive ? " \\\n" : "\n";
    my $text = "::cudalab_cpu::launch(__FILE__, __LINE__, \"$label\", "
             . "[&](auto&&... cudalab_arg_) { $flat_kernel(cudalab_arg_...); }, $flat_cfg)"
             . ($nl x $newlines);
    push @edits, [$k, $close + $close_len, $text];
    pos($mask) = $close + $close_len;
}

# Is position $pos on a preprocessor line (a #define, continued with backslashes)?
sub directive_line {
    my ($pos) = @_;
    my $start = rindex($mask, "\n", $pos);
    while ($start > 0 && substr($mask, $start - 1, 1) eq '\\') {
        $start = rindex($mask, "\n", $start - 1);
    }
    my $text = substr($mask, $start + 1, $pos - $start - 1);
    return $text =~ /^\s*#/;
}

# ---- extern __shared__ T name[]; -----------------------------------------------------------
my @scopes = scope_map();
while ($mask =~ /\bextern\s+((?:[\w:<>,*\s]|\(\s*\d+\s*\)|__attribute__\s*\(\([^)]*\)\)|alignas\s*\([^)]*\)|__align__\s*\([^)]*\))*?)\b(\w+)\s*\[\s*\]\s*;/g) {
    my ($start, $end) = ($-[0], $+[0]);
    my ($type, $var) = ($1, $2);
    next unless $type =~ /\b__shared__\b/;
    $type =~ s/\b__shared__\b//;
    $type =~ s/__attribute__\s*\(\([^)]*\)\)//g;
    $type =~ s/\b(alignas|__align__)\s*\([^)]*\)//g;
    $type =~ s/\s+/ /g;
    $type =~ s/^ | $//g;
    my $newlines = (substr($src, $start, $end - $start) =~ tr/\n//);
    # extern __shared__ volatile T s[]: a lockstep pointer, as for any volatile T* (below).
    my $volatile = ($type =~ s/\bvolatile\b\s*//g);
    $type =~ s/^ | $//g;
    my $ptr = $volatile ? "::cudalab_cpu::lockstep_ptr<$type>" : "$type*";
    my $text = in_function($start)
        ? "$ptr const $var = ::cudalab_cpu::dynamic_smem<$type>();"
        : "static ::cudalab_cpu::DynamicShared<$type> $var;";
    push @edits, [$start, $end, $text . ("\n" x $newlines)];
}

# ---- volatile: warp lockstep --------------------------------------------------------------
# `volatile T*` becomes ::cudalab_cpu::lockstep_ptr<T> and a `volatile T name` object
# ::cudalab_cpu::lockstep<T>, whose accesses make a warp's lanes take turns, as a GPU runs them
# (see cuda_runtime.h). Spellings not matched (references, `T* volatile`, `volatile T**`) keep
# plain volatile: they compile and run as before, one lane after another.
my $type_re = qr/(?:(?:const|unsigned|signed|long|short|struct|class|typename)\s+)*(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*\w+)*(?:\s*<[^<>;{}()]*>)?/;
my $not_type = qr/^(?:static|extern|inline|register|thread_local|constexpr|return|const|__shared__|__device__|__constant__|__managed__|__global__|__restrict__|typedef|using|new|sizeof|case)$/;
my @taken = map { [$_->[0], $_->[1]] } @edits;  # the launches and extern __shared__ already rewritten
sub taken { my $p = shift; for (@taken) { return 1 if $p >= $_->[0] && $p < $_->[1]; } return 0; }
while ($mask =~ /\bvolatile\s+($type_re)(\s+const)?\s*(\*(?!\s*\*)|(?=[A-Za-z_]\w*\s*[\[=;,)]))/g) {
    my ($start, $end, $type, $const, $star) = ($-[0], $+[0], $1, $2 // '', $3);
    next if taken($start);
    my $last = ($type =~ /(\w+)\s*(?:<[^<>]*>)?$/)[0];
    next if $last =~ $not_type;
    (my $t = "$type$const") =~ s/\s+/ /g;
    my $text = $star ? "::cudalab_cpu::lockstep_ptr<$t> " : "::cudalab_cpu::lockstep<$t> ";
    $text .= "\n" x (substr($src, $start, $end - $start) =~ tr/\n//);
    # reinterpret_cast<volatile T*>(p) cannot make a class; lockstep_ptr's explicit constructor does the cast.
    if ($star && substr($mask, 0, $start) =~ /\breinterpret_cast(\s*<\s*)$/) {
        push @edits, [$start - length($1) - 16, $start - length($1), "static_cast"];
    }
    push @edits, [$start, $end, $text];
}
while ($mask =~ /\b($type_re)\s+volatile\s*\*(?!\s*\*)/g) {
    my ($start, $end, $type) = ($-[0], $+[0], $1);
    next if taken($start);
    my $first = ($type =~ /^(\w+)/)[0];
    my $last = ($type =~ /(\w+)\s*(?:<[^<>]*>)?$/)[0];
    next if $last =~ $not_type || $first =~ /^(?:static|extern|inline|register|return|__shared__|__device__)$/;
    (my $t = $type) =~ s/\s+/ /g;
    push @edits, [$start, $end, "::cudalab_cpu::lockstep_ptr<$t> " . ("\n" x (substr($src, $start, $end - $start) =~ tr/\n//))];
}

# ---- return; in a kernel -------------------------------------------------------------------
# Marked, so that a note on a __syncthreads() some threads never reached can tell an early
# return (line N) from a barrier inside an `if` that not every thread enters.
while ($mask =~ /\b__global__\b/g) {
    my $from = $+[0];
    # The body: the first '{' after the parameter list's ')'.
    my $open = index($mask, '{', $from);
    last if $open < 0;
    my $semi = index($mask, ';', $from);
    next if $semi >= 0 && $semi < $open;  # a declaration only
    my ($depth, $close) = (0, -1);
    for (my $j = $open; $j < length $mask; $j++) {
        my $d = substr($mask, $j, 1);
        if ($d eq '{') { $depth++; }
        elsif ($d eq '}' && --$depth == 0) { $close = $j; last; }
    }
    last if $close < 0;
    my $body = substr($mask, $open, $close - $open);
    while ($body =~ /\breturn\s*;/g) {
        my $at = $open + $-[0];
        next if taken($at);
        push @edits, [$at, $at + 6, "return ::cudalab_cpu::kernel_return(__FILE__, __LINE__)"];
    }
    pos($mask) = $close;
}

# For every '{', whether it opens code (a function body or a block inside one).
sub scope_map {
    my @stack;
    my @result;   # [pos, in_code] at every brace
    my $last = 0;
    while ($mask =~ /([{}])/g) {
        my $pos = $-[0];
        if ($1 eq '{') {
            my $head_start = $pos;
            $head_start-- while $head_start > 0 && substr($mask, $head_start - 1, 1) !~ /[;{}]/;
            my $head = substr($mask, $head_start, $pos - $head_start);
            $head =~ s/^\s*#.*$//mg;
            my $kind = ($head =~ /\bnamespace\b/ || $head =~ /\bextern\s*"/) ? 'ns'
                     : ($head =~ /\b(struct|class|union|enum)\b/ && $head !~ /\)\s*(const\s*)?$/) ? 'class'
                     : 'code';
            my $in_code = grep({ $_ eq 'code' } @stack) || $kind eq 'code';
            push @stack, $kind;
            push @result, [$pos, $in_code ? 1 : 0];
        } else {
            pop @stack;
            my $in_code = grep { $_ eq 'code' } @stack;
            push @result, [$pos, $in_code ? 1 : 0];
        }
    }
    return @result;
}

sub in_function {
    my ($pos) = @_;
    my $in = 0;
    for my $s (@scopes) {
        last if $s->[0] > $pos;
        $in = $s->[1];
    }
    return $in;
}

# ---- Output --------------------------------------------------------------------------------
for my $e (sort { $b->[0] <=> $a->[0] } @edits) {
    substr($src, $e->[0], $e->[1] - $e->[0]) = $e->[2];
}
(my $quoted = $name) =~ s/(["\\])/\\$1/g;
open(my $oh, '>', "$out.tmp") or die "rewrite.pl: cannot write $out: $!\n";
print $oh "// Generated by harness/runner/emulator/rewrite.pl from $name; edit that file, not this one.\n";
print $oh "#include <cuda_runtime.h>\n";
print $oh "#define __CUDACC__ 1\n";
print $oh "#line 1 \"$quoted\"\n";
print $oh $src;
close $oh;
rename("$out.tmp", $out) or die "rewrite.pl: cannot write $out: $!\n";
