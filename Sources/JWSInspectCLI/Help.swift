/// `--help` and `--version` texts.
enum Help {
    static let version = "1.0.0"

    static let usage = "usage: jwsinspect [options] [JWS | FILE | -]..."

    static let text = """
    jwsinspect — decode and verify App Store signed data (StoreKit 2 transactions,
    renewal info, App Store Server Notifications V2, app transactions).

    \(usage)

    Each input is a compact JWS, a file, or - for standard input (the default).
    JWS nested in a notification (data.signedTransactionInfo, data.signedRenewalInfo,
    appData.signedAppTransactionInfo) are decoded and verified too; a nested failure
    fails the input. A file or stdin may hold one JWS or many (whitespace or line separated), a
    JSON document holding them (such as a notification body {"signedPayload": …}
    or an App Store Server API response), JSON lines, or log lines quoting them.
    Verification is offline: nothing leaves this machine.

    Verification (the verdict):
      --at now|DATE         check certificate validity at this time instead of the
                            payload's signedDate (else receiptCreationDate, for
                            app transactions); DATE is ISO-8601 (2024-05-01,
                            2024-05-01T12:00:00Z) or milliseconds since 1970.
                            Validity now is always reported beside the verdict.
      --root FILE           trust the root certificates of FILE (DER, or PEM with
                            one or more) instead of the embedded Apple roots;
                            repeatable
      --x509-strict         OpenSSL's X509_V_FLAG_X509_STRICT checks in full:
                            also refuse certificates without key identifiers
                            (the other strict checks always apply)
      --no-verify           decode only; check nothing cryptographic (said loudly)

    StoreKit Testing in Xcode tokens (one self-signed certificate) are labelled as
    NOT signed by the App Store and fail the chain check unless the certificate
    Xcode exports is given: --root StoreKitTestCertificate.cer.

    Expectations (each checked only when given):
      --bundle-id ID        the app's bundle ID
      --app-apple-id N      the app's Apple ID (where the payload carries one)
      --environment ENV     Production, Sandbox, Xcode or LocalTesting
      --account-token UUID  the transaction's (or renewal info's) appAccountToken
      --device-id UUID      the device's AppStore.deviceVerificationID, checked
                            against deviceVerification and its nonce (SHA-384)
      --require-active      the transaction must grant access at --at (default:
                            now): not revoked, not expired, not upgraded
      --type TYPE           treat payloads as transaction, renewalInfo,
                            notification, appTransaction or realtimeRequest
                            (default: recognised from the payload)

    Output:
      --format table|json|jsonl
                            readable tables (default); one pretty JSON object per
                            JWS; or one compact JSON object per line
      --json                short for --format json
      -q, --quiet           print nothing on stdout; the exit status says it all
      --summary             after everything, count results by status (stderr in
                            table mode and with -q; a last JSON object otherwise)
      -j, --jobs N          verification threads (default: one per core); output
                            stays in input order
      --color, --no-color   force colours on or off (default: on for a terminal
                            unless NO_COLOR is set)
      -h, --help            this help
      --version             the version, and the OpenSSL in use

    Exit status (with several JWS, that of the first failing one):
      0   every JWS verified and met every expectation (or --no-verify)
      1   invalid signature (including an alg other than ES256)
      2   invalid certificate chain (missing or short x5c, untrusted root,
          missing Apple OID, certificate not valid at the check time)
      3   environment differs from --environment
      4   bundle ID, app Apple ID, account token or device verification differs
      5   malformed input (no JWS found, undecodable segments, a header or
          payload that is not JSON in UTF-8, over a size limit)
      6   --require-active: the transaction grants no access (revoked, expired,
          upgraded, or nothing that grants access)
      64  usage error (unknown option, bad option value, no certificate in --root)
      66  an input file, closed standard input or --root file cannot be read

    Examples:
      jwsinspect "$(pbpaste)"                          inspect a pasted token
      jwsinspect notification.json --environment Production --bundle-id com.example.app
      jwsinspect --format jsonl history.json | jq -r 'select(.status != "valid") | .reason'
      zcat webhooks.log.gz | jwsinspect -q --summary   a day of webhook logs, streamed
      jwsinspect --at now -q transaction.jws && echo "valid right now"
      jwsinspect --no-verify token.jws                 just decode
      jwsinspect --require-active --account-token "$UUID" transaction.jws
      jwsinspect --root StoreKitTestCertificate.cer xcode-transaction.jws
    """
}
