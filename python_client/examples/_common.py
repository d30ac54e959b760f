"""Shared by the examples: connect to --server, or start a local xla-server."""

import argparse
import contextlib
import os

import xla_client as xc


def parse_args(description, argv=None, add_arguments=None):
  parser = argparse.ArgumentParser(description=description)
  if add_arguments is not None:
    add_arguments(parser)
  parser.add_argument("--server", help="xla-server HOST:PORT (default: start a local one)")
  parser.add_argument("--token", default=os.environ.get("XLA_SERVER_TOKEN"),
                      help="bearer token (default: $XLA_SERVER_TOKEN)")
  return parser.parse_args(argv)


@contextlib.contextmanager
def connect(args, client_name):
  if args.server:
    with xc.Client(args.server, token=args.token, client_name=client_name) as client:
      yield client
    return
  with xc.LocalServer() as server:
    with xc.Client(server.address, token=server.token, client_name=client_name) as client:
      yield client
