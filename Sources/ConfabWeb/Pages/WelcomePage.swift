import ConfabNode
import Hummingbird

/// The first-run page: what the terminal's first run asks, as a form. Static HTML and the
/// app's stylesheet, no script; the suggested and the refused names are escaped, since a
/// login name is whatever the system says.
enum WelcomePage {
    static func ask(
        suggested: String, refusal: String? = nil, typed: String? = nil, linkRefusal: String? = nil,
        code: String = "", address: String = ""
    ) -> Response {
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
        body += """
            <form class="welcome link" method="post" action="/welcome/link">
            <h2>Link to your other machine</h2>
            <p class="hint">Using Confab on another machine already? Run <code>confab devices link</code> \
            there, or press Link a new machine in its web app (Settings, Your devices), and type the code \
            it shows: this computer becomes one of your devices.</p>
            <label for="code">Link code</label>
            <input id="code" name="code" type="text" maxlength="32" autocomplete="off" spellcheck="false" \
            placeholder="ABCDE-FGHJK" value="\(StaticPage.escape(code))">
            <label for="address">Its address (optional)</label>
            <input id="address" name="address" type="text" maxlength="300" autocomplete="off" spellcheck="false" \
            placeholder="192.168.1.20:45731" value="\(StaticPage.escape(address))">
            <p class="hint">As it prints after <code>--peer</code>; left empty, the offer is looked for on the LAN.</p>

            """
        if let linkRefusal {
            body += "<p class=\"form-error\" role=\"alert\">\(StaticPage.escape(linkRefusal))</p>\n"
        }
        body += "<button type=\"submit\">Link</button>\n</form>\n"
        let refused = refusal != nil || linkRefusal != nil
        return page(status: refused ? .unprocessableContent : .ok, title: "Welcome", body: body)
    }

    /// The words both machines show: the person says Yes only when the other shows the same.
    /// The key as the offering web app's dialog and device list print it (its first 16 digits).
    static func words(_ prompt: LinkPrompt) -> Response {
        page(
            status: .ok, title: "Check the words",
            body: """
                <h1>Do these words match?</h1>
                <p>Your other machine shows five words now. Say Yes only if they are the same as these:</p>
                <p class="link-words" role="status"><strong>\(StaticPage.escape(prompt.words.joined(separator: " ")))</strong></p>
                <p class="hint">This computer asks to be linked as “\(StaticPage.escape(prompt.deviceName))” \
                (\(StaticPage.escape(String(prompt.device.fingerprint.prefix(19))))). Answer on the other machine too.</p>
                <form class="welcome" method="post" action="/welcome/link/answer">
                <button type="submit" name="answer" value="yes" class="primary">Yes, they match</button>
                <button type="submit" name="answer" value="no">No</button>
                </form>

                """)
    }

    static func linked(person: String, device: String) -> Response {
        page(
            status: .ok, title: "Linked",
            body: """
                <h1>Linked to \(StaticPage.escape(person))</h1>
                <p role="status">This computer (\(StaticPage.escape(device))) is one of your devices. Starting \
                your node… the app opens in a moment, and your conversations arrive from your other devices.</p>
                <p class="hint">If it does not, <a href="/">open it</a>.</p>

                """,
            refresh: 2)
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
