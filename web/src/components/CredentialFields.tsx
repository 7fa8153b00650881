import { useState } from "react";

/**
 * A password input; `fresh` marks one that sets a new password, so a password manager offers to generate one
 * instead of filling the saved one.
 */
export function PasswordInput({
  testId,
  fresh,
  value,
  onChange,
  placeholder,
}: {
  testId: string;
  fresh: boolean;
  value: string;
  onChange: (password: string) => void;
  placeholder: string;
}) {
  return (
    <input
      data-testid={testId}
      type="password"
      autoComplete={fresh ? "new-password" : "current-password"}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      placeholder={placeholder}
    />
  );
}

export interface Credentials {
  email: string;
  password: string;
  setEmail: (email: string) => void;
  setPassword: (password: string) => void;
}

/** The email and password being typed into a `CredentialFields`. */
export function useCredentials(): Credentials {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  return { email, password, setEmail, setPassword };
}

/**
 * The email and password of an account, as the sign-in form and a link's form ask for them; test ids
 * `<testId>-email` and `<testId>-password`.
 */
export function CredentialFields({
  testId,
  credentials: { email, password, setEmail, setPassword },
  fresh,
  passwordPlaceholder,
}: {
  testId: string;
  credentials: Credentials;
  fresh: boolean;
  passwordPlaceholder: string;
}) {
  return (
    <>
      <input
        // biome-ignore lint/a11y/noAutofocus: the page is this one form; typing starts at once
        autoFocus
        data-testid={`${testId}-email`}
        type="email"
        autoComplete="username"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        placeholder="you@example.com"
      />
      <PasswordInput
        testId={`${testId}-password`}
        fresh={fresh}
        value={password}
        onChange={setPassword}
        placeholder={passwordPlaceholder}
      />
    </>
  );
}
