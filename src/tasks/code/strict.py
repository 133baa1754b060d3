"""The code family's strict rules (docs/strict.md), the Python half of strict.cc.

strict.cc asks the sandbox's worker (src/sandbox/worker.py) for these jobs:
"strict_add_print", "strict_rename", "strict_simulate", "strict_calls" and "returned"
(what a task's function returns, for strict_simulate); the generation job
call_values (generator.py) uses _exact_literal too, to mark the values strict_simulate may take as
the returned ones without calling the function again. The worker imports this file
as a module of its own: it is installed beside the worker script, under the name
structtest_code_strict.py, wherever that script is (the build tree, share/structtest/,
the Python package), and the worker says which file it lacks and where it looked when
it is missing. The worker's protocol, sandbox and tables of jobs stay in worker.py;
what lives here is what the rules decide and the reasons they give.

The rules use a few of the worker's pieces, which the worker hands over with bind()
before it answers a request: _describe and _safe_repr (how an exception and a value are
shown, the same as in the worker's other results), and, for the rules that run the
task's function in the job, _preamble_for, _on_alarm, _TimeLimit, _timed and
_leave_if_forked. Like the worker it needs only the standard library, all of which the
worker has imported already, so that importing it costs the worker's start nothing but
reading its bytecode.
"""

import ast
import builtins
import signal
import textwrap
import types

# The worker's names that the rules below use, set by bind().
WORKER_NAMES = ("_describe", "_safe_repr", "_preamble_for", "_on_alarm", "_TimeLimit",
                "_timed", "_leave_if_forked")


def bind(worker_globals):
    """Takes WORKER_NAMES from the worker's module namespace (its globals())."""
    for name in WORKER_NAMES:
        globals()[name] = worker_globals[name]


# ---- strict rules: model text parsed, never run, in a job ----------------------------
#
# Each strict job gets the answer structtest extracted (tags and fence removed) and
# returns {"pass": bool, "rule": name, "detail": text} (structtest writes the reason as
# "rule: detail"). Model text is parsed with ast (never compiled or run, except that
# test inputs, once parsed as literals, are passed to the task's function the way the
# paper's harness calls it). The jobs that only parse are answered by the worker itself
# when their texts are small (see run_inline in worker.py); otherwise they run in a
# child all the same, so that whatever the parser does on hostile text (memory, time)
# stays there.

SHOW = 60  # characters of a line or value shown in a detail


def _show(text):
    """'text' cut to SHOW characters, control characters escaped (as structtest's
    Excerpt does)."""
    text = str(text)
    cut = text[:SHOW].translate(_CONTROL_ESCAPES)
    return "'" + cut + ("..." if len(text) > SHOW else "") + "'"


_CONTROL_ESCAPES = {c: "\\x%02x" % c for c in list(range(32)) + [127]}
_CONTROL_ESCAPES.update({10: "\\n", 9: "\\t"})


def _verdict(passed, rule, detail):
    return {"pass": passed, "rule": rule, "detail": detail}


def _parse_code(code):
    """(tree, None) or (None, why it does not parse)."""
    try:
        return ast.parse(code), None
    except SyntaxError as e:
        return None, "line %s: %s" % (e.lineno, e.msg)
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        return None, _describe(e)


def _dump(node):
    return ast.dump(node, include_attributes=False)


def _line_text(lines, node):
    n = getattr(node, "lineno", 0)
    return lines[n - 1].strip() if 1 <= n <= len(lines) else "?"


# Fields that hold statement lists, compared by aligning them; every other field of a
# statement (its header: targets, test, args, ...) is compared by its ast.dump.
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _print_pairs(node):
    """The (label, expression) pairs of an inserted print of the asked form
    print("NAME: ", str(NAME), ...), or None when `node` is a print call of another
    form; False when it is not a print call at all."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and
            isinstance(node.value.func, ast.Name) and node.value.func.id == "print"):
        return False
    call = node.value
    if call.keywords or not call.args or len(call.args) % 2:
        return None
    names = []
    for label, value in zip(call.args[0::2], call.args[1::2]):
        if not (isinstance(label, ast.Constant) and isinstance(label.value, str) and
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and
                value.func.id == "str" and len(value.args) == 1 and not value.keywords):
            return None
        try:
            name = ast.unparse(value.args[0])
        except BaseException:
            return None
        if label.value != name + ": ":
            return None
        names.append(name)
    return names


class _Mismatch(Exception):
    def __init__(self, rule, detail):
        super().__init__(detail)
        self.rule = rule
        self.detail = detail


class _PrintAligner:
    """Aligns the answer's statements with the source's, block by block: every answer
    statement is either the next source statement (same header, blocks aligned the
    same way) or an inserted print, which is anchored to the source statement it
    follows. Linear: each pair of statements is compared once."""

    def __init__(self, src_lines, ans_lines):
        self.src_lines = src_lines
        self.ans_lines = ans_lines
        self.printed = {}  # id(source statement) -> names printed right after it
        self.inserted = 0
        self.prints = []  # the inserted prints (answer statements), in answer order

    def header_equal(self, s, a):
        if type(s) is not type(a):
            return False
        for field in s._fields:
            if field in _BLOCK_FIELDS:
                continue
            x, y = getattr(s, field, None), getattr(a, field, None)
            if isinstance(x, ast.AST) or isinstance(y, ast.AST):
                if not (isinstance(x, ast.AST) and isinstance(y, ast.AST) and
                        _dump(x) == _dump(y)):
                    return False
            elif isinstance(x, list) or isinstance(y, list):
                if not (isinstance(x, list) and isinstance(y, list) and len(x) == len(y)):
                    return False
                for p, q in zip(x, y):
                    if isinstance(p, ast.AST) and isinstance(q, ast.AST):
                        if _dump(p) != _dump(q):
                            return False
                    elif p != q:
                        return False
            elif x != y:
                return False
        return True

    def node(self, s, a):
        """s and a have equal headers: align their blocks."""
        for field in _BLOCK_FIELDS:
            x, y = getattr(s, field, None), getattr(a, field, None)
            if x is None and y is None:
                continue
            if field in ("handlers", "cases"):
                if len(x) != len(y):
                    raise _Mismatch("program-unchanged", "line %d %s of the source was changed"
                                    % (s.lineno, _show(_line_text(self.src_lines, s))))
                for p, q in zip(x, y):
                    if not self.header_equal(p, q):
                        raise _Mismatch("program-unchanged",
                                        "line %d %s of the source was changed (the answer "
                                        "has %s)" % (p.lineno, _show(_line_text(self.src_lines, p)),
                                                     _show(_line_text(self.ans_lines, q))))
                    self.block(p.body, q.body, p)
            else:
                self.block(x, y, s)

    def block(self, src, ans, parent):
        i = 0
        anchor = None
        for j, a in enumerate(ans):
            if i < len(src) and self.header_equal(src[i], a):
                self.node(src[i], a)
                anchor = src[i]
                i += 1
                continue
            names = _print_pairs(a)
            if names is None:
                raise _Mismatch("print-form", "answer line %d %s is not of the form "
                                "print(\"NAME: \", str(NAME))"
                                % (a.lineno, _show(_line_text(self.ans_lines, a))))
            if names is not False:
                self.inserted += 1
                self.prints.append(a)
                if anchor is not None:
                    self.printed.setdefault(id(anchor), []).extend(names)
                continue
            if i + 1 < len(src) and self.header_equal(src[i + 1], a):
                raise _Mismatch("program-unchanged", "line %d %s of the source is missing"
                                % (src[i].lineno, _show(_line_text(self.src_lines, src[i]))))
            later = ans[j + 1] if j + 1 < len(ans) else None
            if i < len(src) and later is not None and self.header_equal(src[i], later):
                raise _Mismatch("program-unchanged", "the answer adds %s (its line %d), which "
                                "is not in the source"
                                % (_show(_line_text(self.ans_lines, a)), a.lineno))
            if i < len(src):
                raise _Mismatch("program-unchanged",
                                "line %d %s of the source was changed (the answer has %s at "
                                "its line %d)" % (src[i].lineno,
                                                   _show(_line_text(self.src_lines, src[i])),
                                                   _show(_line_text(self.ans_lines, a)), a.lineno))
            raise _Mismatch("program-unchanged", "the answer adds %s (its line %d), which is "
                            "not in the source" % (_show(_line_text(self.ans_lines, a)), a.lineno))
        if i < len(src):
            raise _Mismatch("program-unchanged", "line %d %s of the source is missing"
                            % (src[i].lineno, _show(_line_text(self.src_lines, src[i]))))


def _statement_links(tree):
    """parent and following-sibling maps of the statements of `tree`, by id."""
    parent, following = {}, {}
    def visit(node):
        for field in _BLOCK_FIELDS:
            stmts = getattr(node, field, None)
            if not stmts:
                continue
            for k, s in enumerate(stmts):
                if field in ("handlers", "cases"):
                    visit(s)  # an except clause or a case: its body belongs to node
                    continue
                parent[id(s)] = node
                following[id(s)] = stmts[k + 1:]
                visit(s)
    visit(tree)
    return parent, following


def _line_parses_alone(lines, n):
    try:
        ast.parse(lines[n - 1].strip())
        return True
    except BaseException:
        return False


# What an inserted print may call (strict-3): the built-in functions that compute a
# value from their arguments and change nothing, and the methods of the built-in types
# (str, list, tuple, dict, set, re.Match) that read. A print is asked to show a value;
# anything else it calls could change what the program does (exit(), a list's pop(),
# the program's own functions), and := rebinds a name.
_READ_BUILTINS = frozenset((
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "chr", "dict", "divmod",
    "enumerate", "float", "format", "frozenset", "hash", "hex", "id", "int", "isinstance",
    "issubclass", "len", "list", "max", "min", "oct", "ord", "pow", "range", "repr",
    "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip",
    "map", "filter", "complex"))
_READ_METHODS = frozenset((
    # str
    "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find",
    "format", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit",
    "isidentifier", "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper",
    "join", "ljust", "lower", "lstrip", "partition", "removeprefix", "removesuffix",
    "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split",
    "splitlines", "startswith", "strip", "swapcase", "title", "upper", "zfill", "decode",
    # list, tuple, dict, set
    "copy", "get", "items", "keys", "values", "difference", "intersection", "isdisjoint",
    "issubset", "issuperset", "symmetric_difference", "union",
    # re.Match
    "group", "groups", "groupdict", "span", "start", "end"))


def _print_changes(expr, program_names):
    """What in an inserted print's expression does more than read (a reason), or None.
    `program_names`: every name the program binds (its own `len` is not the built-in)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.NamedExpr):
            return "it assigns %s" % _show(ast.unparse(node))
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return "it %s" % ("awaits" if isinstance(node, ast.Await) else "yields")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            # a built-in that is no reading function, called or passed (key=exit)
            if (node.id not in program_names and node.id not in _READ_BUILTINS and
                    callable(getattr(builtins, node.id, None)) and
                    not isinstance(getattr(builtins, node.id), type)):
                return "it uses %s, which does more than compute a value" % _show(node.id)
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in _READ_BUILTINS and f.id not in program_names:
                continue
            if isinstance(f, ast.Attribute) and f.attr in _READ_METHODS:
                continue
            return "it calls %s" % _show(ast.unparse(f))
    return None


class _Scope:
    """A function, class or module of the answer: where each name it binds is first
    bound ((line, column)), and the names it declares global or nonlocal."""

    def __init__(self, node, parent):
        self.node, self.parent = node, parent
        self.first = {}
        self.outer = set()

    def bind(self, name, node):
        at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if name not in self.first or at < self.first[name]:
            self.first[name] = at


_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _scopes(tree):
    """{id(statement): its _Scope} for every statement of `tree`, and every name bound
    anywhere in it."""
    of, names = {}, set()

    def collect(node, scope):
        # the bindings of `node` that belong to `scope` (nested scopes bind their own)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                of[id(child)] = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                scope.bind(child.name, child)
                names.add(child.name)
                for d in child.decorator_list:
                    collect_expr(d, scope)
                inner = _Scope(child, scope)
                if not isinstance(child, ast.ClassDef):
                    a = child.args
                    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                        if arg is not None:
                            inner.bind(arg.arg, child)
                            names.add(arg.arg)
                collect(child, inner)
                continue
            if isinstance(child, ast.Lambda) or isinstance(child, _COMPREHENSIONS):
                continue  # their names are their own
            if isinstance(child, (ast.Global, ast.Nonlocal)):
                scope.outer.update(child.names)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for alias in child.names:
                    name = (alias.asname or alias.name).split(".")[0]
                    scope.bind(name, child)
                    names.add(name)
            elif isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                scope.bind(child.id, child)
                names.add(child.id)
            elif isinstance(child, ast.ExceptHandler) and child.name:
                scope.bind(child.name, child)
                names.add(child.name)
            elif isinstance(child, (ast.MatchAs, ast.MatchStar)) and child.name:
                scope.bind(child.name, child)
                names.add(child.name)
            elif isinstance(child, ast.MatchMapping) and child.rest:
                scope.bind(child.rest, child)
                names.add(child.rest)
            collect(child, scope)

    def collect_expr(node, scope):
        collect(ast.Expression(body=node), scope)

    module = _Scope(tree, None)
    collect(tree, module)
    return of, names


def _has_value(scope, name, at):
    """Whether `name`, read at `at` ((line, column)) in `scope`, has a value there by the
    order of the source: a name the scope binds must be bound before; another must be
    bound by an enclosing function or the module (anywhere: they run first), or be a
    built-in."""
    if name in scope.outer:
        return True
    if name in scope.first:
        return scope.first[name] < at
    s = scope.parent
    while s is not None:
        if not isinstance(s.node, ast.ClassDef) and name in s.first:
            return True
        s = s.parent
    return hasattr(builtins, name)


def _print_problem(tree, prints, ans_lines):
    """(rule, detail) for the first inserted print that does more than read values the
    program has at that point, or None."""
    if not prints:
        return None
    of, program_names = _scopes(tree)
    for p in prints:
        shown = _show(_line_text(ans_lines, p))
        for arg in p.value.args[1::2]:
            why = _print_changes(arg.args[0], program_names)
            if why is not None:
                return "print-reads", "answer line %d %s changes the program: %s" % (
                    p.lineno, shown, why)
        scope = of.get(id(p))
        if scope is None:
            continue
        own = set()  # names the print's own comprehensions bind
        for node in ast.walk(p):
            if isinstance(node, ast.comprehension):
                own.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        for node in ast.walk(p):
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and
                    node.id not in own and node.id != "print" and
                    not _has_value(scope, node.id, (p.lineno, p.col_offset))):
                return "print-bound", "answer line %d %s prints %s before the program " \
                    "gives it a value" % (p.lineno, shown, _show(node.id))
    return None


def job_strict_add_print(req):
    """add_print_statements: the source with asked-form prints inserted and nothing
    else changed; after every one-line plain assignment a print of its names."""
    answer_text = textwrap.dedent(req["answer"])  # a block indented as a whole is fine
    src_lines = req["source"].split("\n")
    ans_lines = answer_text.split("\n")
    try:
        source = ast.parse(req["source"])
    except BaseException as e:
        return {"bad_source": _describe(e)}
    answer, why = _parse_code(answer_text)
    if answer is None:
        return _verdict(False, "answer-parses", "the code does not parse as Python (%s)" % why)
    aligner = _PrintAligner(src_lines, ans_lines)
    try:
        aligner.block(source.body, answer.body, source)
    except _Mismatch as m:
        return _verdict(False, m.rule, m.detail)
    except RecursionError:
        return _verdict(False, "answer-parses", "the code is nested too deeply to compare")
    try:
        problem = _print_problem(answer, aligner.prints, ans_lines)
    except RecursionError:
        return _verdict(False, "answer-parses", "the code is nested too deeply to compare")
    if problem is not None:
        return _verdict(False, problem[0], problem[1])
    parent, following = _statement_links(source)
    required = 0
    for node in ast.walk(source):
        if not isinstance(node, ast.Assign):
            continue
        names = []
        for t in node.targets:
            if isinstance(t, ast.Name) and t.id not in names:
                names.append(t.id)
        line = node.lineno
        # Optional (accepted with or without a print): tuple, attribute and subscript
        # targets; assignments over several lines, on a line that is not a statement
        # by itself (`else: x = 1`), or on a line with `return ` (see the doc).
        if not names or node.end_lineno != line or not _line_parses_alone(src_lines, line):
            continue
        if "return " in src_lines[line - 1]:
            continue
        # The prints may follow the assignment, a statement after it on the same line
        # (`a = 1; b = 2`), or the one-line compound statement it is the body of
        # (`if c: x = 1`), each of these in its own block.
        candidates, chain = [], node
        while chain is not None:
            candidates.append(chain)
            candidates.extend(s for s in following.get(id(chain), []) if s.lineno == line)
            up = parent.get(id(chain))
            chain = up if isinstance(up, ast.stmt) and up.lineno == line else None
        printed = set()
        for c in candidates:
            printed.update(aligner.printed.get(id(c), []))
        missing = [n for n in names if n not in printed]
        required += 1
        if missing:
            return _verdict(False, "print-after-assignment", "no print of %s after line %d %s"
                            % (", ".join("'%s'" % n for n in missing), line,
                               _show(src_lines[line - 1].strip())))
    if required == 0:
        return _verdict(True, "", "the source with %d print%s inserted and nothing else changed "
                        "(no assignment needs one)"
                        % (aligner.inserted, "" if aligner.inserted == 1 else "s"))
    return _verdict(True, "", "the source with a print after each of its %d assignment%s "
                    "(%d print%s inserted), nothing else changed"
                    % (required, "" if required == 1 else "s", aligner.inserted,
                       "" if aligner.inserted == 1 else "s"))


class _TreeDiff:
    """The first difference of two syntax trees, `expected` and `answer`; a string
    constant of the answer may also equal the same constant of `original` (the source
    before renaming: renaming inside strings and docstrings is optional)."""

    def __init__(self, renamings):
        self.renamed = {new: old for old, new in renamings}

    def diff(self, e, a, o, stmt_e, stmt_a):
        """None, or (expected stmt, answer stmt, what) of the first difference."""
        if isinstance(e, ast.stmt):
            stmt_e, stmt_a = e, a if isinstance(a, ast.stmt) else stmt_a
        if type(e) is not type(a):
            return stmt_e, stmt_a, None
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            if type(a.value) is not str:
                return stmt_e, stmt_a, None
            if a.value == e.value or (o is not None and type(o) is ast.Constant and
                                      a.value == o.value):
                return None
            return stmt_e, stmt_a, None
        for field in e._fields:
            x, y = getattr(e, field, None), getattr(a, field, None)
            z = getattr(o, field, None) if o is not None and type(o) is type(e) else None
            if isinstance(x, list):
                if not isinstance(y, list):
                    return stmt_e, stmt_a, None
                zs = z if isinstance(z, list) and len(z) == len(x) else [None] * len(x)
                if len(x) != len(y) and (x and isinstance(x[0], ast.stmt) or
                                         y and isinstance(y[0], ast.stmt)):
                    return self.diff_stmts(x, y, zs, stmt_e, stmt_a)
                for p, q, r in zip(x, y, zs):
                    d = self.diff_value(p, q, r, stmt_e, stmt_a)
                    if d is not None:
                        return d
                if len(x) != len(y):
                    return stmt_e, stmt_a, None
                continue
            d = self.diff_value(x, y, z, stmt_e, stmt_a)
            if d is not None:
                return d
        return None

    def diff_stmts(self, x, y, zs, stmt_e, stmt_a):
        """Statement lists of different lengths: the first statement that differs, and
        whether it is missing from the answer or added by it."""
        for k in range(min(len(x), len(y))):
            d = self.diff(x[k], y[k], zs[k], stmt_e, stmt_a)
            if d is None:
                continue
            if len(x) > len(y) and self.diff(x[k + 1], y[k], zs[k + 1], stmt_e, stmt_a) is None:
                return x[k], None, "missing"
            if len(y) > len(x) and self.diff(x[k], y[k + 1], zs[k], stmt_e, stmt_a) is None:
                return None, y[k], "extra"
            return d
        k = min(len(x), len(y))
        if len(y) > len(x):
            return None, y[k], "extra"
        return x[k], None, "missing"

    def diff_value(self, x, y, z, stmt_e, stmt_a):
        if isinstance(x, ast.AST):
            if not isinstance(y, ast.AST):
                return stmt_e, stmt_a, None
            return self.diff(x, y, z if isinstance(z, ast.AST) else None, stmt_e, stmt_a)
        if x == y and type(x) is type(y):
            return None
        if isinstance(x, str) and isinstance(y, str) and self.renamed.get(x) == y:
            return stmt_e, stmt_a, "'%s' was not renamed to '%s'" % (y, x)
        if isinstance(x, str) and isinstance(y, str) and self.renamed.get(y) == x:
            return stmt_e, stmt_a, "'%s' keeps its name here (it follows a dot), the answer " \
                "renames it to '%s'" % (x, y)
        return stmt_e, stmt_a, None


def job_strict_rename(req):
    """replace_variables: the answer's syntax tree is the renamed source's."""
    try:
        original = ast.parse(req["source"])
    except BaseException as e:
        return {"bad_source": _describe(e)}
    try:
        expected = ast.parse(req["expected"])
    except BaseException as e:
        return {"bad_expected": _describe(e)}
    answer_text = textwrap.dedent(req["answer"])
    answer, why = _parse_code(answer_text)
    if answer is None:
        return _verdict(False, "answer-parses", "the code does not parse as Python (%s)" % why)
    renamings = [tuple(m.split(":", 1)) for m in req["mapping"]]
    exp_lines = req["expected"].split("\n")
    ans_lines = answer_text.split("\n")
    try:
        d = _TreeDiff(renamings).diff(expected, answer, original, None, None)
    except RecursionError:
        return _verdict(False, "answer-parses", "the code is nested too deeply to compare")
    if d is None:
        n = len(renamings)
        return _verdict(True, "", "the source with the %d renaming%s applied, nothing else "
                        "changed" % (n, "" if n == 1 else "s"))
    e, a, what = d
    if what == "extra":
        return _verdict(False, "program-renamed", "the answer adds %s (its line %d), which is "
                        "not in the renamed source" % (_show(_line_text(ans_lines, a)), a.lineno))
    if what == "missing":
        return _verdict(False, "program-renamed", "line %d %s of the renamed source is missing"
                        % (e.lineno, _show(_line_text(exp_lines, e))))
    if e is None or a is None:
        return _verdict(False, "program-renamed", "the answer is not the renamed source")
    where = "line %d %s of the renamed source" % (e.lineno, _show(_line_text(exp_lines, e)))
    if what is not None:
        return _verdict(False, "program-renamed", "%s: %s (the answer has %s)"
                        % (where, what, _show(_line_text(ans_lines, a))))
    return _verdict(False, "program-renamed", "%s differs in the answer (%s)"
                    % (where, _show(_line_text(ans_lines, a))))


def _literal(node):
    """The value of a literal expression node (ast.literal_eval's rules: constants,
    containers of literals, signed numbers, complex sums, set()), or raises
    ValueError. Parsed, never evaluated."""
    return ast.literal_eval(node)


def _kind(node):
    """What the first part of an expression that is not a literal is, for a reason."""
    parts = []
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        parts = node.elts
    elif isinstance(node, ast.Dict):
        parts = [k for k in node.keys if k is not None] + node.values
    for part in parts:
        try:
            _literal(part)
        except BaseException:
            return _kind(part)
    if isinstance(node, ast.Call):
        return "a call"
    if isinstance(node, ast.Name):
        return "a name"
    if isinstance(node, (ast.BinOp, ast.BoolOp, ast.Compare, ast.UnaryOp)):
        return "an operation"
    return "a %s expression" % type(node).__name__


def _parse_literal(text):
    """(value, None) or (None, why `text` is not a Python literal)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        return None, "it does not parse as Python (%s)" % e.msg
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        return None, "it does not parse as Python (%s)" % _describe(e)
    try:
        return _literal(tree.body), None
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as e:
        return None, "it is not a Python literal (%s)" % _kind(tree.body)


def _same_value(a, b, numbers_by_value=False):
    """Equal and of the same types all the way down (11.0 is not 11, True is not 1,
    (1, 2) is not [1, 2]); dicts and sets in any order. With numbers_by_value an int
    and a float of the same value are the same (bool stays apart)."""
    if numbers_by_value and type(a) in (int, float) and type(b) in (int, float):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y, numbers_by_value)
                                        for x, y in zip(a, b))
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        keys = {k: k for k in b}
        for k, v in a.items():
            if (k not in keys or not _same_value(k, keys[k], numbers_by_value) or
                    not _same_value(v, b[keys[k]], numbers_by_value)):
                return False
        return True
    if isinstance(a, (set, frozenset)):
        if len(a) != len(b):
            return False
        elems = {x: x for x in b}
        return all(x in elems and _same_value(x, elems[x], numbers_by_value) for x in a)
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


def _type_name(v):
    return type(v).__name__


def _returned_value(req, expected):
    """The value the task's function returns for the task's inputs, when the request
    has them (task data, run here in the job, as `structtest generate` ran it) and it
    equals the expected output: the expected output then is exact down to its types.
    None when unknown."""
    if not all(isinstance(req.get(k), str) for k in ("source", "fn_name", "inputs")):
        return None
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        ns = {"__name__": "tmp_sol"}
        value = _timed(lambda: (exec(compile(req["source"], "<source>", "exec"), ns),
                                ns[req["fn_name"]](*eval("[" + req["inputs"] + "]", {})))[1],
                       max(1, int(req.get("timeout", 4))))
        _leave_if_forked()
        return (value,) if value == expected else None
    except BaseException:
        _leave_if_forked()
        return None


def job_strict_simulate(req):
    """simulate_execute, function style: the answer is a Python literal of the value
    the call returns. The expected output is task data and is evaluated, as the paper
    does; when the task's function and inputs are in the request, the value the call
    returns is the truth, types included; otherwise the expected output may be a test
    assertion's literal (MBPP: `f(x) == 20` holds for 20.0), and ints and floats
    compare by value. The answer is only parsed."""
    try:
        expected = eval(req["expected"], {})
    except BaseException as e:
        return {"bad_expected": _describe(e)}
    exact = req.get("exact") is True  # "expected" is the returned value (job_returned)
    if not exact:
        returned = _returned_value(req, expected)
        exact = returned is not None
        if exact:
            expected = returned[0]
    return _strict_simulate_verdict(req, expected, exact)


def inline_strict_simulate(req):
    """job_strict_simulate for a request without the task's function (nothing is run)
    whose expected output is a literal; None otherwise, and the job runs in a child."""
    if all(isinstance(req.get(k), str) for k in ("source", "fn_name", "inputs")):
        return None
    try:
        expected = ast.literal_eval(req["expected"])
    except BaseException:
        return None
    return _strict_simulate_verdict(req, expected, req.get("exact") is True)


def job_returned(req):
    """What job_strict_simulate learns from the task's function, once per task
    (structtest keeps it for every answer to that task): {"exact": the returned value
    as a literal} when the call returns the expected output and the value's repr reads
    back as it (same types, same repr), {"exact": None} when the call's value is not
    the expected output (the request without the function gives the same verdict), and
    {"literal": False} when the value is not such a literal (the function is then
    passed with every answer)."""
    try:
        expected = eval(req["expected"], {})
    except BaseException as e:
        return {"bad_expected": _describe(e)}
    returned = _returned_value(req, expected)
    if returned is None:
        return {"exact": None}
    value = returned[0]
    text = _exact_literal(value)
    return {"exact": text} if text is not None else {"literal": False}


def _exact_literal(value):
    """repr(value) when it reads back (ast.literal_eval) as the very value: equal, of
    the same types, with the same repr; else None."""
    try:
        text = repr(value)
        back = ast.literal_eval(text)
        if (_same_value(back, value) and repr(back) == text and
                _safe_repr(back) == _safe_repr(value)):
            return text
    except BaseException:
        pass
    return None


def _strict_simulate_verdict(req, expected, exact):
    value, why = _parse_literal(req["answer"])
    if why is not None:
        return _verdict(False, "answer-literal", "the answer %s is not a value: %s"
                        % (_show(req["answer"]), why))
    try:
        same = _same_value(value, expected, numbers_by_value=not exact)
    except BaseException:
        same = False
    if same:
        return _verdict(True, "", "the answer is the %s %s"
                        % ("returned value" if exact else "expected value", _safe_repr(expected)))
    shown, want = _safe_repr(value), _safe_repr(expected)
    returns = "the call returns" if exact else "expected"
    if shown == want or (type(value) is not type(expected)):
        return _verdict(False, "value-matches", "the answer is %s (%s), %s %s (%s)"
                        % (shown, _type_name(value), returns, want, _type_name(expected)))
    return _verdict(False, "value-matches", "the answer is %s, %s %s" % (shown, returns, want))


def _arity(tree, fn_name, solution):
    """(fewest, most) positional arguments of fn_name (most None: any number), or None
    when the function is not a plain def of the source."""
    scope = tree.body
    if solution:
        scope = []
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == "Solution":
                scope = node.body
    found = None
    for node in scope:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn_name:
            found = node  # the last definition wins, as at run time
    if found is None:
        return None
    a = found.args
    positional = len(a.posonlyargs) + len(a.args) - (1 if solution else 0)
    fewest = positional - len(a.defaults)
    if any(d is None for d in a.kw_defaults):
        return None  # a required keyword-only argument: no positional call works
    return max(0, fewest), (None if a.vararg is not None else positional)


def _as_lists(value):
    """`value` with every tuple (at any depth, dict values included) as a list: a
    tuple and a list of the same items are one input (`[(1, 2)]` repeats `[[1, 2]]`)."""
    if isinstance(value, (list, tuple)):
        return [_as_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_lists(v) for k, v in value.items()}
    return value


def _equal(a, b):
    try:
        return a == b
    except BaseException:
        return False


def _strict_calls_inputs(req):
    """What job_strict_calls checks before it runs anything (it only parses): a failing
    verdict, or (the inputs, their lines, the source, whether it is a class Solution)."""
    n = req["gen_n"]
    lines = []
    for number, line in enumerate(req["answer"].split("\n"), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            lines.append((number, stripped))
    if len(lines) != n:
        return _verdict(False, "input-count", "expected %d input lines, found %d"
                        % (n, len(lines)))
    inputs = []
    for k, (number, text) in enumerate(lines, 1):
        value, why = _parse_literal(text)
        if why is not None:
            return _verdict(False, "input-literal", "input %d %s: %s" % (k, _show(text), why))
        if isinstance(value, tuple):
            value = list(value)
        elif not isinstance(value, list):
            value = [value]
        for j, earlier in enumerate(inputs, 1):
            try:
                same = _as_lists(earlier) == _as_lists(value)
            except BaseException:
                same = False
            if same:
                return _verdict(False, "inputs-distinct", "input %d %s repeats input %d%s"
                                % (k, _show(text), j,
                                   "" if _equal(earlier, value) else " (a tuple for a list)"))
        inputs.append(value)
    source = req["source"]
    solution = "class Solution" in source
    try:
        arity = _arity(ast.parse(source), req["fn_name"], solution)
    except BaseException as e:
        return {"bad_source": _describe(e)}
    if arity is not None:
        fewest, most = arity
        for k, args in enumerate(inputs, 1):
            if len(args) < fewest or (most is not None and len(args) > most):
                want = ("%d" % fewest if most == fewest else
                        "%d to %d" % (fewest, most) if most is not None else
                        "at least %d" % fewest)
                return _verdict(False, "input-fits", "input %d %s has %d argument%s, %s takes %s"
                                % (k, _show(lines[k - 1][1]), len(args),
                                   "" if len(args) == 1 else "s", req["fn_name"], want))
    return inputs, lines, source, solution


def inline_strict_calls(req):
    """job_strict_calls's verdict when the answer fails before anything runs; None
    otherwise, and the job runs in a child."""
    checked = _strict_calls_inputs(req)
    return checked if isinstance(checked, dict) else None


def job_strict_calls(req):
    """test_case_inputs_gen, function style: exactly gen_n lines, each a Python literal
    (a list of the arguments; a tuple is taken as the list, another value as the one
    argument), pairwise distinct (tuples compared as lists), each with a number of
    arguments the function takes, and the function runs on each without raising (after
    the reference's preamble)."""
    checked = _strict_calls_inputs(req)
    if isinstance(checked, dict):
        return checked
    inputs, lines, source, solution = checked
    n = req["gen_n"]
    limit = max(1, int(req.get("timeout", 4)))
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(limit)
    try:
        module = types.ModuleType("tmp_sol")
        exec(compile(_preamble_for(source) + source, "<source>", "exec"), module.__dict__)
        target = module.Solution() if solution else module
        method = getattr(target, req["fn_name"])
        signal.alarm(0)
    except BaseException as e:
        signal.alarm(0)
        _leave_if_forked()
        return {"load_error": "time limit" if isinstance(e, _TimeLimit) else _describe(e)}
    for k, args in enumerate(inputs, 1):
        signal.alarm(limit)
        try:
            method(*args)
            signal.alarm(0)
            _leave_if_forked()
        except BaseException as e:
            signal.alarm(0)
            _leave_if_forked()
            what = ("did not finish within %d s" % limit if isinstance(e, _TimeLimit)
                    else "raised %s" % _describe(e))
            return _verdict(False, "input-runs", "input %d %s: the function %s"
                            % (k, _show(lines[k - 1][1]), what))
    return _verdict(True, "", "%d distinct literal inputs that fit %s, and it runs on each"
                    % (n, req["fn_name"]))
