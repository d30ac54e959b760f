"""TLS and mutual TLS from the Python client (self-signed certificates made with openssl)."""

import os
import shutil
import subprocess

import grpc
import numpy as np
import pytest

import xla_client as xc

from conftest import start_server


def make_cert(directory, name):
  subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                  "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                  "-keyout", os.path.join(directory, name + ".key"),
                  "-out", os.path.join(directory, name + ".pem")],
                 check=True, capture_output=True)
  with open(os.path.join(directory, name + ".pem"), "rb") as f:
    cert = f.read()
  with open(os.path.join(directory, name + ".key"), "rb") as f:
    key = f.read()
  return cert, key


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
  if shutil.which("openssl") is None:
    pytest.skip("openssl not installed")
  directory = str(tmp_path_factory.mktemp("certs"))
  return directory, make_cert(directory, "server"), make_cert(directory, "client")


def test_tls(certs):
  directory, (server_cert, _), _ = certs
  server = start_server("--tls-cert=" + os.path.join(directory, "server.pem"),
                        "--tls-key=" + os.path.join(directory, "server.key"))
  try:
    with xc.Client(server.address, token=server.token, root_certificates=server_cert) as c:
      data = c.transfer_to_server(np.arange(4, dtype=np.float32))
      np.testing.assert_array_equal(c.transfer(data), np.arange(4, dtype=np.float32))
    with pytest.raises(xc.XlaRuntimeError) as info:
      xc.Client(server.address, token=server.token, max_retries=0, timeout=3)  # plaintext
    assert info.value.code == grpc.StatusCode.UNAVAILABLE
  finally:
    server.stop()


def test_mutual_tls(certs):
  directory, (server_cert, _), (client_cert, client_key) = certs
  server = start_server("--tls-cert=" + os.path.join(directory, "server.pem"),
                        "--tls-key=" + os.path.join(directory, "server.key"),
                        "--tls-client-ca=" + os.path.join(directory, "client.pem"))
  try:
    with xc.Client(server.address, token=server.token, root_certificates=server_cert,
                   private_key=client_key, certificate_chain=client_cert) as c:
      assert c.devices()
    with pytest.raises(xc.XlaRuntimeError) as info:  # no client certificate
      xc.Client(server.address, token=server.token, root_certificates=server_cert,
                max_retries=0, timeout=3)
    assert info.value.code == grpc.StatusCode.UNAVAILABLE
  finally:
    server.stop()
