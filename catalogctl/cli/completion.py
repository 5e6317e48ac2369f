"""`catalogctl completion bash|zsh|fish`: the shell completion script, generated from the app.

The scripts are static (a <Tab> never starts Python) and are generated from the installed
commands each time they are printed, so they always match the catalogctl that prints them.
"""

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

import typer

from catalogctl.cli.common import path_value

PROG = "catalogctl"


class Shell(StrEnum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


def completion(
    ctx: typer.Context,
    shell: Annotated[
        Shell,
        typer.Argument(metavar="SHELL", help="bash, zsh or fish.", show_default=False),
    ],
) -> None:
    """Print the completion script of a shell: commands, options and their values.

    Examples (install once)

      # bash
      echo 'eval "$(catalogctl completion bash)"' >> ~/.bashrc

      # zsh (fpath is set before compinit runs)
      mkdir -p ~/.zfunc && catalogctl completion zsh > ~/.zfunc/_catalogctl
      echo 'fpath=(~/.zfunc $fpath)' >> ~/.zshrc
      echo 'autoload -Uz compinit && compinit' >> ~/.zshrc

      # fish
      mkdir -p ~/.config/fish/completions
      catalogctl completion fish > ~/.config/fish/completions/catalogctl.fish

    Open a new shell afterwards.
    """
    from catalogctl.output.console import write_document

    write_document(GENERATORS[shell](ctx.find_root().command))


@dataclass(frozen=True)
class Opt:
    names: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...]
    is_path: bool


@dataclass(frozen=True)
class Cmd:
    name: str
    help: str
    options: tuple[Opt, ...]
    path_args: bool
    arg_choices: tuple[str, ...] = ()


def _first_line(text: str | None) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line.rstrip(".")


def describe(root: Any) -> tuple[tuple[Opt, ...], tuple[Cmd, ...]]:
    """The command tree under the root click command: global options and each command's options.

    Typer may vendor its own click, so the tree is read by duck typing.
    """

    def options(cmd: Any) -> tuple[Opt, ...]:
        out = []
        for p in cmd.params:
            if p.param_type_name != "option" or p.hidden:
                continue
            choices = tuple(str(c) for c in getattr(p.type, "choices", None) or ())
            # A path, or a path option read by `path_value` (which refuses an empty one).
            is_path = p.type.name in ("path", path_value.__name__)
            out.append(
                Opt(
                    tuple(p.opts + p.secondary_opts),
                    _first_line(p.help),
                    not p.is_flag,
                    tuple(str(c) for c in choices),
                    is_path,
                )
            )
        return tuple(out)

    ctx = root.context_class(root)
    cmds = []
    for name in root.list_commands(ctx):
        cmd = root.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        args = [p for p in cmd.params if p.param_type_name == "argument"]
        choices = tuple(str(c) for p in args for c in getattr(p.type, "choices", None) or ())
        has_paths = any(p.type.name == "path" for p in args)
        cmds.append(Cmd(name, _first_line(cmd.help), options(cmd), has_paths, choices))
    return options(root), tuple(cmds)


def _q(text: str) -> str:
    return text.replace("'", "'\\''")


def bash(root: Any) -> str:
    global_opts, cmds = describe(root)
    lines = [
        f"# bash completion for {PROG}, printed by `{PROG} completion bash`",
        f"_{PROG}() {{",
        "    local cur prev cmd i",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    cmd=""',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in',
        f'            {"|".join(c.name for c in cmds)}) cmd="${{COMP_WORDS[i]}}"; break ;;',
        "        esac",
        "    done",
        '    case "$cmd" in',
        '        "")',
        f"            COMPREPLY=($(compgen -W '{' '.join(n for o in global_opts for n in o.names)} "
        f'{" ".join(c.name for c in cmds)}\' -- "$cur"))',
        "            return ;;",
    ]
    for c in cmds:
        lines.append(f"        {c.name})")
        lines.append('            case "$prev" in')
        for o in c.options:
            if not o.takes_value:
                continue
            if o.choices:
                action = f"COMPREPLY=($(compgen -W '{' '.join(o.choices)}' -- \"$cur\"))"
            elif o.is_path:
                action = 'COMPREPLY=($(compgen -f -- "$cur"))'
            else:
                action = "COMPREPLY=()"
            lines.append(f"                {'|'.join(o.names)}) {action}; return ;;")
        lines.append("            esac")
        opts = " ".join(n for o in c.options for n in o.names)
        lines.append('            if [[ "$cur" == -* ]]; then')
        lines.append(f"                COMPREPLY=($(compgen -W '{opts}' -- \"$cur\"))")
        if c.arg_choices:
            lines.append("            else")
            lines.append(
                f"                COMPREPLY=($(compgen -W '{' '.join(c.arg_choices)}' -- \"$cur\"))"
            )
        elif c.path_args:
            lines.append("            else")
            lines.append('                COMPREPLY=($(compgen -f -- "$cur"))')
        lines.append("            fi")
        lines.append("            return ;;")
    lines += ["    esac", "}", f"complete -o filenames -F _{PROG} {PROG}", ""]
    return "\n".join(lines)


def zsh(root: Any) -> str:
    global_opts, cmds = describe(root)

    def spec(o: Opt) -> str:
        names = o.names
        head = f"'({' '.join(names)})'{{{','.join(names)}}}" if len(names) > 1 else f"'{names[0]}"
        desc = _q(o.help).replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")
        tail = ""
        if o.takes_value:
            action = "_files" if o.is_path else " "
            tail = f":value:({' '.join(o.choices)})" if o.choices else f":value:{action}"
        body = f"[{desc}]{tail}'"
        return f"{head}'{body}" if len(names) > 1 else f"{head}{body}"

    lines = [
        f"#compdef {PROG}",
        f"# zsh completion for {PROG}, printed by `{PROG} completion zsh`",
        f"_{PROG}() {{",
        "    local -a commands",
        "    commands=(",
        *[f"        '{c.name}:{_q(c.help)}'" for c in cmds],
        "    )",
        "    _arguments -C \\",
        *[f"        {spec(o)} \\" for o in global_opts],
        "        '1: :->command' \\",
        "        '*:: :->args'",
        "    case $state in",
        "        command) _describe 'command' commands ;;",
        "        args)",
        "            case $words[1] in",
    ]
    for c in cmds:
        args = [spec(o) for o in c.options]
        if c.arg_choices:
            args.append(f"'1:value:({' '.join(c.arg_choices)})'")
        elif c.path_args:
            args.append("'*:path:_files'")
        lines.append(f"                {c.name}) _arguments \\")
        lines += [f"                    {a} \\" for a in args[:-1]]
        lines.append(f"                    {args[-1]} ;;" if args else "                    ;;")
    lines += [
        "            esac ;;",
        "    esac",
        "}",
        "# Autoloaded from $fpath: complete now; sourced: register with compinit's compdef.",
        'if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then',
        f'    _{PROG} "$@"',
        "else",
        f"    compdef _{PROG} {PROG}",
        "fi",
        "",
    ]
    return "\n".join(lines)


def fish(root: Any) -> str:
    global_opts, cmds = describe(root)
    names = " ".join(c.name for c in cmds)
    lines = [
        f"# fish completion for {PROG}, printed by `{PROG} completion fish`",
        f"complete -c {PROG} -f",
    ]

    def opt_line(o: Opt, cond: str) -> str:
        parts = [f"complete -c {PROG} -n '{cond}'"]
        for n in o.names:
            parts.append(f"-l {n[2:]}" if n.startswith("--") else f"-s {n[1:]}")
        if o.takes_value:
            if o.choices:
                parts.append(f"-x -a '{' '.join(o.choices)}'")
            else:
                parts.append("-r -F" if o.is_path else "-x")
        parts.append(f"-d '{_q(o.help)}'")
        return " ".join(parts)

    for o in global_opts:
        lines.append(opt_line(o, "__fish_use_subcommand"))
    for c in cmds:
        lines.append(f"complete -c {PROG} -n '__fish_use_subcommand' -a {c.name} -d '{_q(c.help)}'")
    for c in cmds:
        cond = f"__fish_seen_subcommand_from {c.name}"
        lines += [opt_line(o, cond) for o in c.options]
        if c.arg_choices:
            lines.append(f"complete -c {PROG} -n '{cond}' -x -a '{' '.join(c.arg_choices)}'")
        elif c.path_args:
            lines.append(f"complete -c {PROG} -n '{cond}' -F")
    lines.append(f"# commands: {names}")
    lines.append("")
    return "\n".join(lines)


GENERATORS = {Shell.bash: bash, Shell.zsh: zsh, Shell.fish: fish}
