internal import JWSInspectCore

/// A subcommand, described once: its help, the man page and the shell completions are made
/// from these descriptions and the option tables.
struct CommandDoc {
    /// The subcommand's name (`inspect`), as typed after `jwsinspect`.
    let name: String
    /// One line: what it does.
    let abstract: String
    /// Usage lines, without "jwsinspect ".
    let usage: [String]
    /// Paragraphs, wrapped where they are shown.
    let discussion: [String]
    let options: [OptionDoc]
    /// What a shell completes for its positional arguments.
    let positional: OptionDoc.Completion
    /// Command lines, each with what it does: jwsinspect's arguments, or a whole pipeline that
    /// names jwsinspect itself (`tail -f webhooks.log | jwsinspect --format jsonl`).
    let examples: [(command: String, comment: String)]

    /// An example as a reader types it.
    static func commandLine(_ command: String) -> String {
        command.contains("| jwsinspect ") ? command : "jwsinspect " + command
    }
}

/// Every subcommand of `jwsinspect`. `inspect` is the default: `jwsinspect FILE` is
/// `jwsinspect inspect FILE`.
enum Commands {
    /// Their documentation, in the order help lists them: the registry's (`Commands.registry`).
    static let all: [CommandDoc] = registry.map { $0.doc }

    /// The subcommands' names, known without building any documentation or option table: a
    /// run picks its subcommand by name, then builds that one's table alone.
    enum Name: String, CaseIterable {
        case inspect, fetch, listen, sign, mint, timeline
        case verifyOfferV1 = "verify-offer-v1"
        case completion, help
    }

    static func named(_ name: String) -> CommandDoc? {
        all.first { $0.name == name }
    }

    static let inspect = CommandDoc(
        name: Name.inspect.rawValue,
        abstract: "decode and verify App Store signed data (the default subcommand)",
        usage: ["[inspect] [options] [JWS | FILE | -]..."],
        discussion: [
            "Each input is a compact JWS, a file, or - for standard input (the default). A file or standard input may hold one "
                + "JWS or many (whitespace or line separated, or wrapped over several lines), a JSON document holding them (a "
                + "notification body {\"signedPayload\": …}, an App Store Server API response; any string in it is scanned "
                + "as a log line is, and one that holds a JSON document, such as an API Gateway event's body, is read as one), "
                + "JSON lines, or log lines quoting them. An argument may be quoted or start with \"Bearer \", as copied from "
                + "code or a request.",
            "JWS nested in a notification (\(NotificationBody.nestedTokens.map(\.path).joined(separator: ", "))) are "
                + "decoded and verified too; a nested failure fails the input. Results are "
                + "shown as each is verified, in input order, so a stream (tail -f) is shown as it arrives. Verification is "
                + "offline: nothing leaves this machine.",
            "StoreKit Testing in Xcode tokens (one self-signed certificate) are labelled as NOT signed by the App Store and fail "
                + "the chain check unless the certificate Xcode exports is given: --root StoreKitTestCertificate.cer.",
            "Legacy App Store receipts (PKCS#7, as appStoreReceiptURL holds them) are read wherever JWS are: a DER or BER "
                + "file, base64 text (wrapped or not), a JSON string such as a verifyReceipt body's receipt-data. Their "
                + "signature is checked, their chain to Apple Inc. Root at receipt_creation_date, and the same expectations "
                + "apply (bundle_id, receipt_type, the device hash, active in-app entries).",
            "A StoreKit 1 transaction receipt (the base64 a StoreKit 1 transaction's transactionReceipt held) is decoded and "
                + "reported unverifiable (exit 10), naming the fetch command that asks Apple. A realtime response (what "
                + "your Get Retention Message endpoint answers: a JSON object of message, alternateProduct, "
                + "promotionalOffer or advancedCommerceInfo) is checked against Apple's model (exit 7 naming the "
                + "member) and its offer signature verified: a V2 JWS with --key, a V1 signature with --key and "
                + "--bundle-id.",
        ],
        options: InspectOptions.table.map(\.doc),
        positional: .files,
        examples: [
            ("\"$(pbpaste)\"", "inspect a pasted token (a paste longer than a terminal line works too)"),
            (
                "notification.json --environment Production --bundle-id com.example.app",
                "a webhook body, with expectations"
            ),
            ("--format jsonl history.json | jq -r 'select(.status != \"valid\") | .reason'", "why each failure failed"),
            ("tail -f webhooks.log | jwsinspect --format jsonl", "each result as soon as it arrives"),
            ("-q --summary webhooks.log", "count a day of webhooks by status, on standard error"),
            ("--at now -q transaction.jws && echo \"valid right now\"", "certificates checked at this moment"),
            (
                "--exact --require-active --account-token \"$UUID\" transaction.jws",
                "a backend's gate: does this customer have access now?"
            ),
            ("--require-active --access-at 2025-10-02T07:08:00Z transaction.jws", "did it grant access then?"),
            ("--no-verify token.jws", "just decode"),
            ("--bundle-id com.example.app receipt.der", "a legacy App Store receipt"),
            ("--root StoreKitTestCertificate.cer xcode-transaction.jws", "a StoreKit Testing in Xcode token"),
        ])

    static let listen = CommandDoc(
        name: Name.listen.rawValue,
        abstract: "receive App Store Server Notifications live: verified, shown, stored once, forwarded",
        usage: ["listen [--listen ADDR:PORT] [--path /PATH] [--log FILE] [--forward-to URL] [--import FILE] [options]"],
        discussion: [
            "An HTTP/1.1 server (libmicrohttpd, in jwsinspect-fetch) for the URL set in App Store Connect, reached "
                + "through a tunnel or a reverse proxy: each POST to --path is read (at most 1 MiB of body, 16 KiB of "
                + "headers, 10 seconds of silence, 30 seconds of body, 512 connections), scanned as inspect scans a "
                + "webhook body and verified as inspect verifies it (--root, --at, --bundle-id, --environment, "
                + "--check-revocation), then shown as it arrives: time, answer, type and subtype, notificationUUID, "
                + "the nested transaction's product and ID, and inspect's brief lines (verdict, summary, access).",
            "Answers: an authentic notification is 200, once stored (with --log: appended and synced to the disk "
                + "before the answer, several requests at once sharing one sync), also when --bundle-id or "
                + "--environment differs (stored and flagged, so that Apple stops retrying and nothing is lost); a "
                + "notificationUUID stored before is 200 and not stored again, across restarts. A forgery is 403, a "
                + "body with no notification or a malformed one 400, another kind of JWS 422, a body over 1 MiB 413, "
                + "a body too slow 408, another path 404, another method 405; nothing refused is stored. What can "
                + "succeed later is 503, so that Apple sends it again: revocation that could not be checked, a log "
                + "that could not be written (a full disk).",
            "The log holds one JSON line per record: {\"record\":\"stored\", time, notificationUUID, "
                + "notificationType, subtype, status, reason, via, from, body} (the body as it came) and "
                + "{\"record\":\"forwarded\", …}; timeline reads it as it is. A crash loses no notification "
                + "answered 200; a record cut short by one is set aside into FILE.torn at the next start. "
                + "--import FILE appends the notifications FILE holds (fetch notifications --save answers) through "
                + "the same rule: a backfill of what timeline --against found missed.",
            "Ctrl-C (SIGINT) or SIGTERM stops: requests in flight get up to 5 seconds, then the counts are shown "
                + "(received, stored, repeated, rejected, forwarded) and the exit status is 0. Exit status 69 when "
                + "the address cannot be bound or this build has no HTTP server, 74 when the log cannot be opened or "
                + "is refused, 127 when jwsinspect-fetch is not installed; --import: that of the first notification "
                + "not stored, as inspect's.",
        ],
        options: ListenOptions.table.map(\.doc),
        positional: .none,
        examples: [
            ("listen --log notifications.jsonl", "receive on 127.0.0.1:8080, store each notification once"),
            (
                "listen --listen 127.0.0.1:9000 --path /apple --log notifications.jsonl --forward-to "
                    + "http://127.0.0.1:3000/webhooks/apple",
                "receive, store and pass each on to your own endpoint"
            ),
            (
                "listen --import apple/notifications-Production-page-1.json --log notifications.jsonl",
                "backfill: append Apple's copies, as fetch notifications --since 7d --save apple kept them"
            ),
        ])

    static let fetch = CommandDoc(
        name: Name.fetch.rawValue,
        abstract: "ask the App Store Server API, then verify and show every JWS of its answer",
        usage: ["fetch KIND [ID] --key FILE --issuer-id UUID --bundle-id ID [options]"],
        discussion: [
            "KIND is transaction ID (Get Transaction Info), history ID (Get Transaction History, every page), "
                + "subscriptions ID (Get All Subscription Statuses), order ORDER_ID (Look Up Order ID, Production only: the "
                + "order ID of Apple's receipt e-mail), refunds ID (Get Refund History, every page), app-transaction ID "
                + "(Get App Transaction Info), notifications --since DATE (Get Notification History, every page) or "
                + "test-notification (Request a Test Notification, then its status until Apple reports a send attempt) or "
                + "test-notification-status TOKEN (Get Test Notification Status of one requested before: its "
                + "testNotificationToken) or extension-status PRODUCT_ID REQUEST_ID (Get Status of Subscription "
                + "Renewal Date Extensions: whether a mass extension completed, and its counts; unsigned), or the Retention "
                + "Messaging API's reads, unsigned: retention-images, retention-messages (each with its review state), "
                + "retention-default PRODUCT_ID LOCALE (a product's default message), retention-realtime-url and "
                + "retention-performance-test REQUEST_ID (a performance test's result: why a realtime URL failed). "
                + "Every kind only reads: fetch never changes a purchase or a subscription; "
                + "a test notification is the one request that asks Apple to act.",
            "Each request carries a fresh bearer token signed with the key (as sign api-token makes it: 5 minutes). "
                + "Without --environment, Production is asked first and Sandbox when Production does not know the ID "
                + "(errorCode 4040010), as Apple advises; standard error says which answered. 429 waits until "
                + "Retry-After, 5xx and network errors back off exponentially, at most --retries times.",
            "Every JWS of the answer is verified as inspect verifies one given on the command line (same roots, --at, "
                + "expectations, formats), expecting --bundle-id and the answering environment. Sources say where each "
                + "came from: fetch history 2000000000000010 (Production) page 2: signedTransactions[3]. The answer's "
                + "unsigned fields (environment, bundleId, hasMore, an order's status, each subscription's status, "
                + "sendAttempts) come first: an API RESPONSE section, or in JSON a record of type apiResponse with a "
                + "status. fetch is the only command that goes online, and only to the base URLs shown here.",
            "Exit status: 0 to 7 from the answer's JWS (the first failure); 8 nothing found; 69 the API refused the "
                + "request (its errorCode in the message) or answered what is not JSON; 75 try again later; 77 the "
                + "API refused the token (401); 64 usage; 66 unreadable key file; 74 output or --save failed.",
        ],
        options: FetchOptions.table.map(\.doc),
        positional: .values(FetchOptions.Kind.allCases.map(\.rawValue)),
        examples: [
            (
                "fetch order MQ7TYF9XYZ --key AuthKey_2X9R4HXF34.p8 --issuer-id \"$ISSUER_ID\" --bundle-id com.example.app",
                "what did the customer of this receipt e-mail buy, and is it genuine?"
            ),
            (
                "fetch subscriptions 2000000000000010 --require-active",
                "does this customer have access now (credentials from JWSINSPECT_* variables)?"
            ),
            (
                "fetch history 2000000000000010 --format jsonl --save answers/ | jq -r 'select(.type != \"apiResponse\") | .status'",
                "every transaction, the bodies kept as Apple sent them"
            ),
            ("fetch notifications --since 7d --only-failures", "the last week's notifications that did not arrive"),
            ("fetch test-notification --environment Sandbox", "does my server receive Apple's notifications?"),
        ])

    static let mint = CommandDoc(
        name: Name.mint.rawValue,
        abstract: "make signed App Store test data of one's own (NOT Apple's): a test CA and tokens signed with it",
        usage: [
            "mint ca --out DIR [--valid-days N] [--root-curve P-384|P-256] [--force]",
            "mint transaction|renewalInfo|notification|appTransaction|realtimeRequest --ca DIR [options]",
            "mint suite --ca DIR --out DIR2 [--bundle-id ID] [--environment ENV] [--force]",
            "mint timeline --ca DIR [--clean] [--bundle-id ID] [--environment ENV]",
        ],
        discussion: [
            "mint ca writes an Apple-shaped test PKI to DIR: root.der and root.pem (self-signed, P-384 as Apple Root CA "
                + "- G3, or P-256), intermediate.der (carrying 1.2.840.113635.100.6.2.1), leaf.der (carrying "
                + "1.2.840.113635.100.6.11.1, a P-256 key), leaf-key.p8 (the leaf's key, PKCS#8 PEM, mode 0600), intermediate-key.p8 and root-key.p8 (mode 0600, for "
                + "mint suite's defective certificates) and "
                + "README.txt saying how to trust root.der (jwsinspect --root; the root certificates argument of "
                + "Apple's libraries). Every subject says \"jwsinspect test\" and \"not Apple\". A folder that is not "
                + "empty is refused (exit 74) unless --force is given.",
            "mint transaction, renewalInfo, notification, appTransaction and realtimeRequest (named as inspect's --type and JSON type name them; renewal-info and the like are accepted too) print one JWS signed "
                + "by DIR's leaf (x5c: leaf, intermediate, root), its payload complete for its kind: every field Apple "
                + "documents with a plausible value, IDs and dates consistent, signedDate now. --set PATH=VALUE and "
                + "--from TEMPLATE.json change it. A notification nests its signedTransactionInfo and "
                + "signedRenewalInfo (or appData.signedAppTransactionInfo), minted the same way and consistent with "
                + "its type; --set transaction.expiresDate=… reaches them.",
            "mint suite writes a negative suite for a backend's CI: one token per file and manifest.json, {\"cases\": "
                + "[{file, type, expect (valid or invalid: what Apple's algorithm decides), defect, exitCode (what "
                + "jwsinspect answers with --root DIR/root.der and the same --bundle-id and --environment), "
                + "description}]}: valid tokens of every kind, edge cases a verifier must accept (a high-S signature, "
                + "a garbage x5c[2]) and the defects it must refuse (bad signature, tampered payload, alg none, HS256 "
                + "or ES384, missing or one-certificate x5c, an untrusted root, an intermediate or leaf without "
                + "Apple's OID, a leaf expired or not yet valid at signedDate, a DER signature, a crit header, wrong "
                + "bundle ID or environment, a notification whose nested transaction's signature is bad).",
            "mint timeline prints a webhook log, one {\"signedPayload\": …} body a line, of one monthly "
                + "subscription's life from 65 days ago: a purchase, a renewal, a refund of the first month, a failed "
                + "renewal in the billing grace period and its recovery. It is delivered as Apple delivers: the "
                + "renewal twice and the recovery before the failure (--clean: each once, in signing order). The CA's "
                + "leaf must be valid 65 days back: mint ca --backdate 70. jwsinspect timeline reads it.",
            "Exit status: 0, 64 for a usage error or an unusable CA folder or template, 66 when a file cannot be "
                + "read, 74 when the folder cannot be created or a file or the output cannot be written.",
        ],
        options: MintOptions.table.map(\.doc),
        positional: .values(MintOptions.Kind.names),
        examples: [
            ("mint ca --out test-ca", "a test CA; then: jwsinspect --root test-ca/root.der TOKEN"),
            ("mint transaction --ca test-ca --bundle-id com.example.app --set price=4990", "a transaction"),
            (
                "mint notification --ca test-ca --notification-type DID_RENEW --set transaction.expiresDate=1767225600000",
                "a notification, its nested transaction changed"
            ),
            ("mint suite --ca test-ca --bundle-id com.example.app --out suite", "a negative suite, with manifest.json"),
            ("mint ca --out timeline-ca --backdate 70", "a test CA whose leaf signs data dated up to 70 days back"),
            (
                "mint timeline --ca timeline-ca > webhooks.jsonl",
                "a subscription's webhook log as Apple delivers it (for jwsinspect timeline)"
            ),
        ]
    )

    static let sign = CommandDoc(
        name: Name.sign.rawValue,
        abstract: "make a developer-signed token or offer signature with an App Store Connect In-App Purchase key",
        usage: ["sign KIND --key FILE [options]"],
        discussion: [
            "KIND is api-token (the App Store Server API bearer token: iss, iat, exp, aud appstoreconnect-v1, bid), "
                + "promotional-offer (aud promotional-offer: productId, offerIdentifier, transactionId when given), "
                + "introductory-offer-eligibility (productId, allowIntroductoryOffer, transactionId), advanced-commerce "
                + "(aud advanced-commerce-api: request, the base64 of the request JSON) or promotional-offer-v1 (the "
                + "legacy StoreKit 1 signature). The JWS have the header {\"alg\":\"ES256\",\"kid\":KEYID,\"typ\":\"JWT\"}; "
                + "all but api-token carry a fresh lowercase UUID nonce and no exp, as Apple requires.",
            "promotional-offer-v1 signs bundle ID, key ID, product ID, offer ID, the lowercased application username, "
                + "the lowercased nonce and the timestamp joined by U+2063 (ECDSA P-256 SHA-256, DER, base64), as "
                + "Apple's PromotionalOfferSignatureCreator does.",
            "Prints one line, the token or signature, and nothing else: TOKEN=$(jwsinspect sign api-token ...) works. "
                + "The key never appears in any output; a private key file readable by group or others is warned "
                + "about on standard error. Exit status: 0, 64 for a usage error or an unusable key file, 66 when the "
                + "key file cannot be read, 74 when output cannot be written.",
        ],
        options: SignOptions.table.map(\.doc),
        positional: .values(SignOptions.Kind.allCases.map(\.rawValue)),
        examples: [
            (
                "sign api-token --key AuthKey_2X9R4HXF34.p8 --issuer-id \"$ISSUER_ID\" --bundle-id com.example.app",
                "a bearer token for the App Store Server API (curl -H \"Authorization: Bearer $TOKEN\")"
            ),
            (
                "sign promotional-offer --key AuthKey_2X9R4HXF34.p8 --issuer-id \"$ISSUER_ID\" --bundle-id "
                    + "com.example.app --product-id pro.monthly --offer-id WINBACK",
                "a promotional offer JWS for Product.PurchaseOption.promotionalOffer"
            ),
            (
                "sign promotional-offer-v1 --json --key AuthKey_2X9R4HXF34.p8 --bundle-id com.example.app --product-id "
                    + "pro.monthly --offer-id WINBACK --application-username \"$ACCOUNT_TOKEN\"",
                "a legacy offer signature with its nonce, timestamp and key ID"
            ),
        ])

    static let timeline = CommandDoc(
        name: Name.timeline.rawValue,
        abstract:
            "fold a webhook log into each subscription's state, and find what was duplicated, out of order or missed",
        usage: ["timeline [options] [FILE | -]..."],
        discussion: [
            "Reads what inspect reads (webhook bodies, notification logs, transactions, renewal info, App Store Server "
                + "API answers as fetch --save keeps them), verifies every item exactly as inspect does (the same "
                + "roots, --at, expectations and exit statuses) and folds the verified ones, in input order; an item "
                + "that fails verification is reported as skipped and never folded.",
            "Each subscription (keyed by originalTransactionId; a one-time purchase by its transactionId) gets its "
                + "state, decided by signing time, never by arrival: product, environment, appAccountTokens, the "
                + "latest expiresDate, the revocation of the transaction that decides access, renewal intent from the "
                + "latest-signed renewal info, and access at --access-at (else now) by the one access model (a billing "
                + "grace period from the latest-signed renewal info); then its events by "
                + "signedDate, with the items (input positions) that delivered each.",
            "Anomalies, each with its items: duplicate (one notificationUUID delivered more than once), conflict (one "
                + "notificationUUID with two signed payloads, or one transaction described two ways), out-of-order "
                + "(an item that arrived after a later-signed one of its subscription), refund-without-purchase, gap "
                + "(a renewal purchased after the previous period expired, with no EXPIRED or DID_FAIL_TO_RENEW "
                + "between and no billing grace period a renewal info signs over it) and, with --against Apple's record (the answers fetch notifications or "
                + "fetch history keep with --save), missed: what a backfill must replay.",
            "JSON records, in order: {\"type\":\"subscription\", originalTransactionId, productId, environment, "
                + "access, expiresDate, revoked, autoRenewStatus, appAccountTokens, events, anomalies} per "
                + "subscription, {\"type\":\"anomaly\", kind, originalTransactionId, items, identifier, detail} per "
                + "anomaly, {\"type\":\"skipped\", item, source, status} per item not folded, then "
                + "{\"type\":\"summary\", …}.",
            "Exit status: that of the first item that failed verification, as inspect's; else 9 with "
                + "--fail-on-anomaly when there is an anomaly; else 0. 64 for a usage error, 66 when an input cannot "
                + "be read.",
        ],
        options: TimelineOptions.table.map(\.doc),
        positional: .files,
        examples: [
            ("timeline --root timeline-ca/root.der webhooks.jsonl", "each subscription's state, events and anomalies"),
            ("timeline --root timeline-ca/root.der --brief webhooks.jsonl", "one line per subscription"),
        ]
    )

    static let verifyOfferV1 = CommandDoc(
        name: Name.verifyOfferV1.rawValue,
        abstract: "verify a legacy (StoreKit 1) promotional offer signature with the developer's key",
        usage: [
            "verify-offer-v1 --key FILE --bundle-id ID --product-id ID --offer-id ID --application-username TEXT "
                + "--nonce UUID --timestamp MS SIGNATURE"
        ],
        discussion: [
            "SIGNATURE is what the app passes to StoreKit (SKPaymentDiscount.signature): standard base64 of a DER "
                + "ECDSA P-256 SHA-256 signature over bundle ID, key ID, product ID, offer ID, the lowercased "
                + "application username, the lowercased nonce and the timestamp joined by U+2063 INVISIBLE SEPARATOR, "
                + "as Apple's PromotionalOfferSignatureCreator makes it. The key is the .p8 private key or its public "
                + "key PEM (with --key-id, or a key ID from the file name AuthKey_KEYID.p8).",
            "Shows the verdict, the checks, the exact string that was signed (U+2063 shown as ⟨U+2063⟩) and the "
                + "fields. A timestamp more than 24 hours old is reported (the App Store refuses such a signature), as "
                + "a warning: the exit status is the signature's. Exit status: 0 when the signature verifies, 1 when "
                + "not (another key, or a field differs from what was signed), 64 for a usage error (a missing field, "
                + "a nonce that is not a UUID, a signature that is not base64 of a DER signature), 66 when the key "
                + "file cannot be read, 74 when output cannot be written.",
        ],
        options: VerifyOfferV1Options.table.map(\.doc),
        positional: .none,
        examples: [
            (
                "verify-offer-v1 --key AuthKey_2X9R4HXF34.p8 --bundle-id com.example.app --product-id pro.monthly "
                    + "--offer-id WINBACK --application-username \"$ACCOUNT_TOKEN\" --nonce \"$NONCE\" --timestamp "
                    + "1698148900000 \"$SIGNATURE\"",
                "does this signature verify, and over which string?"
            )
        ])

    static let completion = CommandDoc(
        name: Name.completion.rawValue,
        abstract: "print a shell completion script",
        usage: ["completion bash|zsh|fish"],
        discussion: [
            "Prints the completion script for the shell: options, their fixed values and file names. `make install` installs "
                + "all three where the shells look for them; to load one by hand: source <(jwsinspect completion bash), "
                + "jwsinspect completion zsh > ~/.zfunc/_jwsinspect (a folder on fpath), or jwsinspect completion fish > "
                + "~/.config/fish/completions/jwsinspect.fish."
        ],
        options: CompletionOptions.table.map(\.doc),
        positional: .values(CompletionOptions.Shell.allCases.map(\.rawValue)),
        examples: [("completion bash > /etc/bash_completion.d/jwsinspect", "install bash completion system-wide")])

    static let help = CommandDoc(
        name: Name.help.rawValue,
        abstract: "show help for jwsinspect or one subcommand, or its man page",
        usage: ["help [SUBCOMMAND] [--man]"],
        discussion: [
            "Without a subcommand, the help of jwsinspect (as --help). With --man, the manual page in roff, as installed "
                + "in share/man/man1/jwsinspect.1 (read it with: jwsinspect help --man | man -l -)."
        ],
        options: HelpOptions.table.map(\.doc),
        positional: .values(Name.allCases.map(\.rawValue)),
        examples: [("help --man | man -l -", "read the manual page")])
}
