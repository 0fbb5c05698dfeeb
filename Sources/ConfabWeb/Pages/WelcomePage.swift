import Hummingbird

/// The first-run page: what the terminal's first run asks, as a form. Static HTML and the
/// app's stylesheet, no script; the suggested and the refused names are escaped, since a
/// login name is whatever the system says.
enum WelcomePage {
    static func ask(suggested: String, refusal: String? = nil, typed: String? = nil) -> Response {
        var body = """
            <h1>Welcome to Confab</h1>
            <p>This computer has no Confab identity yet. Choose the name others will see; you can \
            change it later in Settings.</p>
            <form class="welcome" method="post" action="/welcome">
            <label for="name">Your display name</label>
            <input id="name" name="name" type="text" maxlength="64" autocomplete="nickname" autofocus \
            placeholder="\(StaticPage.escape(suggested))" value="\(StaticPage.escape(typed ?? ""))">
            <p class="hint">Leave it empty to be “\(StaticPage.escape(suggested))”.</p>

            """
        if let refusal { body += "<p class=\"form-error\" role=\"alert\">\(StaticPage.escape(refusal))</p>\n" }
        body += "<button type=\"submit\" class=\"primary\">Start</button>\n</form>\n"
        return page(status: refusal == nil ? .ok : .unprocessableContent, title: "Welcome", body: body)
    }

    static func created(name: String) -> Response {
        // The node starts on this address in a moment: the browser goes on to the app then.
        page(
            status: .ok, title: "Starting",
            body: """
                <h1>Hello, \(StaticPage.escape(name))</h1>
                <p role="status">Your identity is made. Starting your node… the app opens in a moment.</p>
                <p class="hint">If it does not, <a href="/">open it</a>.</p>

                """,
            refresh: 2)
    }

    private static func page(
        status: HTTPResponse.Status, title: String, body: String, refresh: Int? = nil
    )
        -> Response
    {
        let meta = refresh.map { "<meta http-equiv=\"refresh\" content=\"\($0);url=/\">" } ?? ""
        return StaticPage.response(
            status: status, title: title, head: meta + "<link rel=\"stylesheet\" href=\"/app.css\">",
            bodyClass: "first-run", body: "<main class=\"first-run-card\">\n\(body)</main>\n")
    }
}
