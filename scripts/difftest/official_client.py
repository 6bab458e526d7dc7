"""Apple's own App Store Server API client against jwsinspect's mock server.

The mock (Tests/JWSInspectCLITests/MockAppStore/) is what the fetch tests trust to answer as
Apple does. This holds it to Apple's reference client: app-store-server-library's
AppStoreServerAPIClient (its tokens: PyJWT, no iat) calls every endpoint fetch uses, pages
through history, refunds and notification history, parses every answer into Apple's models,
and Apple's SignedDataVerifier verifies every JWS in them with the mock's root. Any token the
mock refuses, any body Apple's models cannot hold, any JWS Apple's verifier refuses, fails.

Run by OfficialClientTests (make difftest sets JWSINSPECT_DIFFTEST_PYTHON):
    official_client.py BASE_URL KEY.p8 KEY_ID ISSUER_ID BUNDLE_ID ROOT.der APP_APPLE_ID
Prints one JSON object of counts; exits 1 with the reason on the first failure.
"""
import json, sys, time
from appstoreserverlibrary.api_client import AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest, Order
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

base, key_path, key_id, issuer_id, bundle_id, root_path, app_apple_id = sys.argv[1:8]
with open(key_path, "rb") as f:
    key = f.read()
with open(root_path, "rb") as f:
    root = f.read()

client = AppStoreServerAPIClient(key, key_id, issuer_id, bundle_id, Environment.PRODUCTION)
client._base_url = base  # the mock on loopback instead of api.storekit.apple.com
verifier = SignedDataVerifier([root], False, Environment.PRODUCTION, bundle_id, int(app_apple_id))
counts = {}


def count(what, n=1):
    counts[what] = counts.get(what, 0) + n


def transactions(signed):
    for jws in signed:
        verifier.verify_and_decode_signed_transaction(jws)
        count("transactions verified")


customer = "2000000000000001"
info = client.get_transaction_info("2000000000000003")
transactions([info.signedTransactionInfo])

revision, pages = None, 0
while True:
    page = client.get_transaction_history(
        customer, revision, TransactionHistoryRequest(sort=Order.ASCENDING), GetTransactionHistoryVersion.V2)
    assert page.environment == Environment.PRODUCTION and page.bundleId == bundle_id, page
    transactions(page.signedTransactions)
    pages += 1
    if not page.hasMore:
        break
    revision = page.revision
count("history pages", pages)

statuses = client.get_all_subscription_statuses(customer)
for group in statuses.data:
    for item in group.lastTransactions:
        assert item.status is not None, item
        transactions([item.signedTransactionInfo])
        verifier.verify_and_decode_renewal_info(item.signedRenewalInfo)
        count("renewal infos verified")

order = client.look_up_order_id("MQ7VL8L8FG")
assert order.status == 0, order
transactions(order.signedTransactions)
assert client.look_up_order_id("MZZZZZZZZZ").status == 1

refunds = client.get_refund_history(customer, None)
transactions(refunds.signedTransactions)

app = client.get_app_transaction_info(customer)
verifier.verify_and_decode_app_transaction(app.signedAppTransactionInfo)
count("app transactions verified")

test = client.request_test_notification()
for _ in range(5):
    try:
        status = client.get_test_notification_status(test.testNotificationToken)
    except Exception as error:  # 404 4040008 until the notification is there
        assert getattr(error, "raw_api_error", None) == 4040008, error
        time.sleep(0.2)
        continue
    verifier.verify_and_decode_notification(status.signedPayload)
    count("test notifications verified")
    break

now = int(time.time() * 1000)
request = NotificationHistoryRequest(startDate=now - 170 * 86400 * 1000, endDate=now)
token, pages = None, 0
while True:
    page = client.get_notification_history(token, request)
    for item in page.notificationHistory:
        verifier.verify_and_decode_notification(item.signedPayload)
        count("notifications verified")
        assert item.sendAttempts, item
    pages += 1
    if not page.hasMore:
        break
    token = page.paginationToken
count("notification history pages", pages)

# The read-only endpoints fetch added: a mass extension's status, the Retention Messaging
# API's reads (the test seeds each), parsed into Apple's models.
extension = client.get_status_of_subscription_renewal_date_extensions(
    "2c5a0f0e-6b7d-4f3e-9a1b-0c2d3e4f5a6b", "pro.monthly")
assert extension.complete is True and extension.succeededCount == 1204 and extension.failedCount == 3, extension
count("extension statuses parsed")
images = client.get_image_list()
assert [item.rawImageState for item in images.imageIdentifiers] == ["PENDING", "APPROVED", "REJECTED"], images
messages = client.get_message_list()
assert [item.rawMessageState for item in messages.messageIdentifiers] == ["APPROVED", "PENDING", "REJECTED"], messages
default = client.get_default_message("pro.monthly", "en-US")
assert str(default.messageIdentifier) == "3f2b1c0d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", default
assert client.get_realtime_url().realtimeURL == "https://example.com/retention"
result = client.get_performance_test_results("7c8d9e0f")
assert result.rawResult == "FAIL" and result.successRate == 92 and result.responseTimes.p99 == 1900, result
count("retention reads parsed", 5)

try:
    client.get_transaction_info("2999999999999999")
    raise AssertionError("an unknown transaction was answered")
except AssertionError:
    raise
except Exception as error:
    assert error.http_status_code == 404 and error.raw_api_error == 4040010, error
    count("errors parsed")

print(json.dumps(counts, sort_keys=True))
