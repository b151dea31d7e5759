"""Silent-push a2a-sdk 1.3.0 peer: claims streaming and push notifications, accepts and stores
push configs, but has no sender, so no callback is ever POSTed.
Usage: silent_push.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

from echo_peer import Capabilities, base_url, build_app, build_card, build_handler, parse_args, serve


def main() -> None:
    args = parse_args(__doc__)
    both = Capabilities(streaming=True, push_notifications=True)
    card = build_card('python-silent-push', base_url(args), both)
    handler = build_handler(card, args, push_store=True, push_sender=False)
    serve(build_app(card, handler), args)


if __name__ == '__main__':
    main()
