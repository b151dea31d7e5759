"""Over-declaring a2a-sdk 1.3.0 peer: the card claims streaming, pushNotifications and
stateTransitionHistory; the agent implements none of them.

The SDK enforces the handler's own (honest) card, so SendStreamingMessage and SubscribeToTask
answer -32004 UnsupportedOperation and the push-config methods -32003
PushNotificationNotSupported, while SendMessage works.
Usage: over_declaring.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

from echo_peer import Capabilities, base_url, build_app, build_card, build_handler, parse_args, serve


def main() -> None:
    args = parse_args(__doc__)
    claimed = build_card(
        'python-over-declaring', base_url(args), Capabilities(streaming=True, push_notifications=True)
    )
    implemented = build_card(
        'python-over-declaring', base_url(args), Capabilities(streaming=False, push_notifications=False)
    )
    handler = build_handler(implemented, args, push_store=False, push_sender=False)
    app = build_app(claimed, handler, extra_card_fields={'stateTransitionHistory': True})
    serve(app, args)


if __name__ == '__main__':
    main()
