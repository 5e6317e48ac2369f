# bash completion for catalogctl, printed by `catalogctl completion bash`
_catalogctl() {
    local cur prev cmd i
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            init|validate|build|check-links|serve|diff|completion|schema) cmd="${COMP_WORDS[i]}"; break ;;
        esac
    done
    case "$cmd" in
        "")
            COMPREPLY=($(compgen -W '--version -V init validate build check-links serve diff completion schema' -- "$cur"))
            return ;;
        init)
            case "$prev" in
                --games) COMPREPLY=(); return ;;
                --format|-f) COMPREPLY=($(compgen -W 'table json' -- "$cur")); return ;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--games --force --format -f' -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return ;;
        validate)
            case "$prev" in
                --format|-f) COMPREPLY=($(compgen -W 'table json github sarif junit markdown' -- "$cur")); return ;;
                --output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --explain) COMPREPLY=(); return ;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--format -f --output --strict --list-rules --explain' -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return ;;
        build)
            case "$prev" in
                --out|-o) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --base-url) COMPREPLY=(); return ;;
                --nginx-listen) COMPREPLY=(); return ;;
                --nginx-state-dir) COMPREPLY=(); return ;;
                --target) COMPREPLY=($(compgen -W 'static cloudflare' -- "$cur")); return ;;
                --cache-control) COMPREPLY=(); return ;;
                --jobs|-j) COMPREPLY=(); return ;;
                --format|-f) COMPREPLY=($(compgen -W 'table json' -- "$cur")); return ;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--out -o --base-url --force --nginx-listen --nginx-state-dir --target --cache-control --jobs -j --strict --format -f' -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return ;;
        check-links)
            case "$prev" in
                --timeout) COMPREPLY=(); return ;;
                --accept) COMPREPLY=(); return ;;
                --exclude) COMPREPLY=(); return ;;
                --include) COMPREPLY=(); return ;;
                --cache) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --max-cache-age) COMPREPLY=(); return ;;
                --format|-f) COMPREPLY=($(compgen -W 'table json github sarif junit markdown' -- "$cur")); return ;;
                --output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --max-concurrency) COMPREPLY=(); return ;;
                --host-concurrency) COMPREPLY=(); return ;;
                --retries) COMPREPLY=(); return ;;
                --max-retry-wait) COMPREPLY=(); return ;;
                --rate-limit-wait) COMPREPLY=(); return ;;
                --max-redirects) COMPREPLY=(); return ;;
                --user-agent) COMPREPLY=(); return ;;
                --max-icon-size) COMPREPLY=(); return ;;
                --max-body) COMPREPLY=(); return ;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--offline --timeout --accept --exclude --include --cache --max-cache-age --strict --format -f --output --max-concurrency --host-concurrency --retries --max-retry-wait --rate-limit-wait --max-redirects --user-agent --max-icon-size --max-body --allow-private' -- "$cur"))
            fi
            return ;;
        serve)
            case "$prev" in
                --host) COMPREPLY=(); return ;;
                --port|-p) COMPREPLY=(); return ;;
                --base-url) COMPREPLY=(); return ;;
                --workers|-w) COMPREPLY=(); return ;;
                --log-format) COMPREPLY=($(compgen -W 'text json' -- "$cur")); return ;;
                --access-log) COMPREPLY=(); return ;;
                --access-log-format) COMPREPLY=($(compgen -W 'text json common combined' -- "$cur")); return ;;
                --forwarded-allow-ips) COMPREPLY=(); return ;;
                --metrics) COMPREPLY=(); return ;;
                --http) COMPREPLY=($(compgen -W 'httptools aiohttp' -- "$cur")); return ;;
                --unix) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --cache-control) COMPREPLY=(); return ;;
                --keepalive-timeout) COMPREPLY=(); return ;;
                --shutdown-timeout) COMPREPLY=(); return ;;
                --max-header-size) COMPREPLY=(); return ;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--host --port -p --base-url --watch --workers -w --quiet -q --log-format --access-log --access-log-format --forwarded-allow-ips --metrics --http --unix --cache-control --keepalive-timeout --shutdown-timeout --max-header-size' -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return ;;
        diff)
            case "$prev" in
                --format|-f) COMPREPLY=($(compgen -W 'table json github sarif junit markdown' -- "$cur")); return ;;
                --output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --fail-on) COMPREPLY=($(compgen -W 'breaking warning any' -- "$cur")); return ;;
                --timeout) COMPREPLY=(); return ;;
                --max-body) COMPREPLY=(); return ;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--format -f --output --fail-on --timeout --max-body --allow-private' -- "$cur"))
            fi
            return ;;
        completion)
            case "$prev" in
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '' -- "$cur"))
            else
                COMPREPLY=($(compgen -W 'bash zsh fish' -- "$cur"))
            fi
            return ;;
        schema)
            case "$prev" in
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '' -- "$cur"))
            else
                COMPREPLY=($(compgen -W 'page site' -- "$cur"))
            fi
            return ;;
    esac
}
complete -o filenames -F _catalogctl catalogctl
