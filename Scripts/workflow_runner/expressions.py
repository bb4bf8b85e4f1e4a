"""`${{ }}` expressions: the subset a recipe uses, evaluated as GitHub does.

Literals, `== != < <= > >= && || !` and parentheses; the contexts github, runner, matrix,
strategy, steps, needs, env and job; the functions success(), failure(), always(), cancelled()
and hashFiles(). Anything else raises `Unsupported`.
"""

import collections
import glob
import hashlib
import json
import os
import re

from .errors import Unsupported

TOKEN = re.compile(r"""
    \s*(?:
      (?P<number>-?\d+(?:\.\d+)?)
    | '(?P<string>(?:[^']|'')*)'
    | (?P<op>==|!=|<=|>=|&&|\|\||[<>!().,\[\]*])
    | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
    )""", re.VERBOSE)

STATUS_FUNCTIONS = ("success", "failure", "always", "cancelled")

CONTEXTS = ("github", "runner", "matrix", "strategy", "steps", "needs", "env", "job")

# What success() and failure() answer. In a step: the job's status so far. In a job's `if:`:
# the jobs it needs, directly or through others (see results.Results.needs).
Status = collections.namedtuple("Status", ["success", "failure"])


def tokenize(text):
    tokens, position = [], 0
    text = text.strip()
    while position < len(text):
        match = TOKEN.match(text, position)
        if not match or match.end() == position:
            raise Unsupported(f"cannot read the expression {text!r} at {text[position:]!r}")
        position = match.end()
        kind = match.lastgroup
        value = match.group(kind)
        if kind == "string":
            value = value.replace("''", "'")
        tokens.append((kind, value))
    return tokens


class Expression:
    """A recursive-descent evaluator of the expression subset a recipe uses."""

    def __init__(self, text, context, status=None):
        self.text = text
        self.tokens = tokenize(text)
        self.position = 0
        self.context = context
        self.status = status

    def evaluate(self):
        value = self.parse_or()
        if self.position != len(self.tokens):
            raise Unsupported(f"unexpected {self.tokens[self.position][1]!r} in {self.text!r}")
        return value

    def peek(self):
        return self.tokens[self.position] if self.position < len(self.tokens) else (None, None)

    def take(self, value=None):
        token = self.peek()
        if token[0] is None or (value is not None and token[1] != value):
            raise Unsupported(f"expected {value!r} in {self.text!r}")
        self.position += 1
        return token

    def parse_or(self):
        value = self.parse_and()
        while self.peek() == ("op", "||"):
            self.take()
            right = self.parse_and()
            value = value if truthy(value) else right
        return value

    def parse_and(self):
        value = self.parse_unary()
        while self.peek() == ("op", "&&"):
            self.take()
            right = self.parse_unary()
            value = right if truthy(value) else value
        return value

    def parse_unary(self):
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.parse_unary())
        return self.parse_comparison()

    def parse_comparison(self):
        left = self.parse_primary()
        kind, value = self.peek()
        if kind == "op" and value in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            return compare(left, value, self.parse_primary())
        return left

    def parse_primary(self):
        kind, value = self.take()
        if kind == "number":
            return float(value)
        if kind == "string":
            return value
        if kind == "op" and value == "(":
            inner = self.parse_or()
            self.take(")")
            return inner
        if kind == "name":
            if value in ("true", "false"):
                return value == "true"
            if value == "null":
                return None
            if self.peek() == ("op", "("):
                return self.call(value)
            return self.property_path(value)
        raise Unsupported(f"unexpected {value!r} in {self.text!r}")

    def call(self, name):
        self.take("(")
        arguments = []
        while self.peek() != ("op", ")"):
            arguments.append(self.parse_or())
            if self.peek() == ("op", ","):
                self.take()
        self.take(")")
        status = self.status or step_status(self.context["job"]["status"])
        if name == "success":
            return status.success
        if name == "failure":
            return status.failure
        if name == "always":
            return True
        if name == "cancelled":
            return False
        if name == "hashFiles":
            return hash_files(self.context["github"]["workspace"], arguments)
        raise Unsupported(f"the function {name}() in {self.text!r} is not emulated")

    def property_path(self, name):
        if name not in CONTEXTS or name not in self.context:
            raise Unsupported(f"the context {name!r} in {self.text!r} is not emulated")
        value, path = self.context[name], name
        while self.peek() in (("op", "."), ("op", "[")):
            if self.take()[1] == ".":
                kind, key = self.take()
                if kind != "name":
                    raise Unsupported(f"{key!r} after {path!r} in {self.text!r}")
            else:
                key = self.parse_or()
                self.take("]")
            path += f".{key}"
            value = self.member(value, key, path)
        return value

    def member(self, value, key, path):
        if isinstance(value, dict) and key in value:
            return value[key]
        # An output a step did not set reads as empty on GitHub; anything else is a typo (a
        # needed job's outputs hold every name its `outputs:` declares).
        if re.fullmatch(r"steps\.[^.]+\.outputs\.[^.]+", path) and isinstance(value, dict):
            return ""
        if re.fullmatch(r"needs\.[^.]+", path):
            raise Unsupported(f"{path} is not defined (in {self.text!r}): the job does not "
                              f"need {key!r}")
        raise Unsupported(f"{path} is not defined (in {self.text!r})")


def step_status(job_status):
    """success() and failure() in a step: what the job's steps so far came to."""
    return Status(success=job_status == "success", failure=job_status == "failure")


def truthy(value):
    return value not in (False, 0, 0.0, "", None)


def as_number(value):
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if value is None:
        return 0.0
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(value.strip()) if value.strip() else 0.0
    except ValueError:
        return float("nan")


def compare(left, operator, right):
    if isinstance(left, str) and isinstance(right, str):
        left, right = left.lower(), right.lower()
    elif type(left) is not type(right):
        left, right = as_number(left), as_number(right)
    return {
        "==": lambda: left == right, "!=": lambda: left != right, "<": lambda: left < right,
        "<=": lambda: left <= right, ">": lambda: left > right, ">=": lambda: left >= right,
    }[operator]()


def render(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def interpolate(text, context):
    """A string with `${{ }}` expressions replaced by their values."""
    if not isinstance(text, str):
        return render(text)
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: render(Expression(m.group(1), context)
                                                       .evaluate()), text)


def condition_text(text):
    """An `if:` value as an expression: `${{ }}` is optional, and without a status function
    `success() && (…)` is implied."""
    if text is None:
        text = "success()"
    text = str(text).strip() if not isinstance(text, bool) else render(text)
    whole = re.fullmatch(r"\$\{\{(.*)\}\}", text, re.S)
    if whole:
        text = whole.group(1)
    if not uses_status_function(text):
        text = f"success() && ({text})"
    return text


def uses_status_function(text):
    return any(re.search(rf"\b{name}\s*\(", str(text)) for name in STATUS_FUNCTIONS)


def condition(text, context, status=None):
    """Whether an `if:` holds; `status` answers success() and failure() (default: the job's
    steps so far, as in a step's `if:`)."""
    return truthy(Expression(condition_text(text), context, status).evaluate())


def hash_files(workspace, patterns):
    """hashFiles(): the SHA-256 of the matched files' SHA-256s, in path order; '' for none."""
    files = set()
    for pattern in patterns:
        for match in glob.glob(pattern, root_dir=workspace, recursive=True):
            if os.path.isfile(os.path.join(workspace, match)):
                files.add(os.path.normpath(match))
    if not files:
        return ""
    outer = hashlib.sha256()
    for name in sorted(files):
        with open(os.path.join(workspace, name), "rb") as handle:
            outer.update(hashlib.sha256(handle.read()).digest())
    return outer.hexdigest()
